// Feeds ibnetdiscover cache files (`ibnetdiscover --cache FILE`, binary) to
// fabric::load_ibnd_cache. The cache is read by libibnetdisc (ibnd_load_fabric), which only
// takes a path: the input is written to one file in /dev/shm per process, reused for every
// run. libibnetdisc itself is not instrumented for coverage (a system library); the
// conversion into the fabric model is. Bad input must end in fabric::InputError.
// load_ibnd_cache checks the file's structure before libibnetdisc reads it (which corrupts
// the heap on some malformed caches), so libibnetdisc only ever sees consistent files.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fabric/diagnostics.h"
#include "fabric/ibnd_loader.h"
#include "fabric/node_name_map.h"

namespace {

const std::string& cache_path() {
  static const std::string path = [] {
    std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return dir + "/ibw-fuzz-ibnd-" + std::to_string(getpid()) + ".cache";
  }();
  return path;
}

bool write_file(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  cache_path();  // constructed first, so destroyed after the handler below has run
  std::atexit([] { std::remove(cache_path().c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibw::fabric;
  if (!write_file(cache_path(), data, size)) __builtin_trap();
  try {
    Fabric f = load_ibnd_cache(cache_path());
    apply_node_names(f, nullptr);
  } catch (const InputError&) {
  }
  return 0;
}

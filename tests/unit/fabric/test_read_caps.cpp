// fabric::read_file, FileText and read_secret_file (issue 31): every file ibwarden reads has
// a size cap, named in the error with the file; a device (/dev/zero as a plan or probe file)
// fails at once instead of growing the process until the OOM killer; a secret file others may
// write is refused.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "config/config.h"
#include "fabric/diagnostics.h"
#include "fabric/plan.h"
#include "ingest/observation.h"
#include "tests/unit/test_helpers.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;

namespace read_caps_test {

// The error of fn() (which must throw), with the time it took and the memory it grew by.
template <typename F>
std::string error_of(F fn, double* ms, int64_t* grew) {
  int64_t before = test::rss_bytes();
  auto start = std::chrono::steady_clock::now();
  std::string what;
  try {
    fn();
  } catch (const std::exception& e) {
    what = e.what();
  }
  *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  *grew = test::rss_bytes() - before;
  return what;
}

}  // namespace read_caps_test

using namespace read_caps_test;

TEST_CASE("read caps: /dev/zero as a plan or probe file or config fails at once", "[fabric]") {
  double ms = 0;
  int64_t grew = 0;
  std::string plan = error_of([] { fabric::load_plan("/dev/zero"); }, &ms, &grew);
  WARN("/dev/zero as a plan: " << ms << " ms, RSS +" << grew / 1024 << " KiB: " << plan);
  CHECK(plan.find("/dev/zero") != std::string::npos);
  CHECK(plan.find("not a regular file or a pipe") != std::string::npos);
  CHECK(ms < 1000);
  CHECK(grew < 64 << 20);
  std::string probes = error_of([] { ingest::load_observations("/dev/zero"); }, &ms, &grew);
  WARN("/dev/zero as probes: " << ms << " ms, RSS +" << grew / 1024 << " KiB: " << probes);
  CHECK(probes.find("/dev/zero: not a regular file") != std::string::npos);
  CHECK(ms < 1000);
  CHECK(grew < 64 << 20);
  CHECK(error_of([] { fabric::FileText t("/dev/zero"); }, &ms, &grew).find("/dev/zero") == 0);
  CHECK(error_of([] { config::load_config("/dev/urandom"); }, &ms, &grew).find("/dev/urandom") ==
        0);
}

TEST_CASE("read caps: a file over its cap is refused before it is read", "[fabric]") {
  store_test::TempDir dir;
  std::string big = dir.file("big.yaml");
  std::ofstream(big) << "fabric:\n  name: x\n";
  REQUIRE(::truncate(big.c_str(), (5 << 20)) == 0);  // sparse: 5 MiB of zeros after the text
  double ms = 0;
  int64_t grew = 0;
  std::string e = error_of([&] { config::load_config(big); }, &ms, &grew);
  WARN("5 MiB config: " << ms << " ms, RSS +" << grew / 1024 << " KiB: " << e);
  CHECK(e == big + ": over the 4 MiB cap for a config file (5242880 bytes)");
  CHECK(grew < 4 << 20);
  e = error_of([&] { fabric::read_file(big, 1 << 20, "a test file"); }, &ms, &grew);
  CHECK(e.find("over the 1 MiB cap for a test file") != std::string::npos);
  CHECK(fabric::read_file(big).size() == (5 << 20));  // the default cap is far above
  // A pipe has no size: it is read in chunks and stopped at the cap.
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::string fifo = "/proc/self/fd/" + std::to_string(fds[0]);
  std::string chunk(4096, 'x');
  for (int i = 0; i < 8; ++i) REQUIRE(::write(fds[1], chunk.data(), chunk.size()) == 4096);
  ::close(fds[1]);
  e = error_of([&] { fabric::read_file(fifo, 16 << 10, "a test file"); }, &ms, &grew);
  ::close(fds[0]);
  CHECK(e.find("over the 16 KiB cap for a test file (more than 16384 bytes read)") !=
        std::string::npos);
}

TEST_CASE("read caps: a secret file others may write is refused - group-readable is fine",
          "[fabric]") {
  store_test::TempDir dir;
  std::string secret = dir.file("secret");
  std::ofstream(secret) << "s3cret\n";
  ::chmod(secret.c_str(), 0640);
  CHECK(fabric::read_secret_file(secret) == "s3cret\n");
  for (mode_t mode : {0660, 0602}) {
    ::chmod(secret.c_str(), mode);
    try {
      fabric::read_secret_file(secret);
      FAIL("a group- or world-writable secret file was read");
    } catch (const fabric::InputError& e) {
      CHECK(std::string(e.what()) ==
            secret + ": group or other users may write it (chmod go-w; it holds a secret)");
    }
  }
  ::chmod(secret.c_str(), 0600);
  REQUIRE(::truncate(secret.c_str(), 100 << 10) == 0);
  CHECK_THROWS_WITH(fabric::read_secret_file(secret),
                    Catch::Contains("over the 64 KiB cap for a secret file"));
}

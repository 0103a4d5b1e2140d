#include "cli/alloc_tuning.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

namespace ibw::cli {

const char* const kMallocTunables =
    "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967295:"
    "glibc.malloc.top_pad=268435456:glibc.malloc.mxfast=0";
const char* const kHugePagesTunable = "glibc.malloc.hugetlb=1";

std::string malloc_tunables(std::string_view command) {
  if (command == "run") return kMallocTunables;
  return std::string(kHugePagesTunable) + ":" + kMallocTunables;
}

const char* const kTunedCommands[] = {"run", "audit", "replay", "localize", "probe", "route"};

std::optional<std::string> tuned_glibc_tunables(const char* current, const char* switch_value,
                                                std::string_view command) {
  if (switch_value && std::string_view(switch_value) == "off") return std::nullopt;
  if (!current || !*current) return malloc_tunables(command);
  if (std::string_view(current).find("glibc.malloc.") != std::string_view::npos)
    return std::nullopt;
  return std::string(current) + ":" + malloc_tunables(command);
}

namespace {

bool malloc_replaced() {
#if defined(IBW_SANITIZED) || defined(__SANITIZE_ADDRESS__)
  return true;
#endif
  const char* preload = std::getenv("LD_PRELOAD");
  return preload && std::strstr(preload, "vgpreload");  // valgrind
}

}  // namespace

const char* tuned_command(char** argv) {
  for (char** a = argv + 1; *a; ++a)
    for (const char* c : kTunedCommands)
      if (std::strcmp(*a, c) == 0) return c;
  return nullptr;
}

void tune_allocator(char** argv) {
  const char* command = tuned_command(argv);
  if (malloc_replaced() || !command) return;
  auto value = tuned_glibc_tunables(std::getenv("GLIBC_TUNABLES"), std::getenv("IBW_MALLOC_TUNING"),
                                    command);
  if (!value) return;
  std::string previous = std::getenv("GLIBC_TUNABLES") ? std::getenv("GLIBC_TUNABLES") : "";
  bool had_previous = std::getenv("GLIBC_TUNABLES") != nullptr;
  if (setenv("GLIBC_TUNABLES", value->c_str(), 1) != 0) return;
  // The resolved path, not /proc/self/exe itself: the process name (ps, pgrep, journald's
  // _COMM) comes from the executed file's name.
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    execv(self, argv);
  }
  // exec failed (no /proc, seccomp...): go on with glibc's defaults and the caller's env.
  if (had_previous)
    setenv("GLIBC_TUNABLES", previous.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

}  // namespace ibw::cli

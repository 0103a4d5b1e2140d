// fabric::populate_for_write (fabric/prefetch.h): the whole pages of a large buffer are
// mapped in before it is written, and a small buffer is left alone.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <vector>

#include "fabric/prefetch.h"

namespace {

// How many of the n pages from p are resident (mincore).
size_t resident_pages(void* p, size_t n) {
  std::vector<unsigned char> in(n);
  REQUIRE(mincore(p, n * 4096, in.data()) == 0);
  size_t count = 0;
  for (unsigned char c : in) count += c & 1;
  return count;
}

}  // namespace

TEST_CASE("populate_for_write maps in the pages of a large buffer and not of a small one",
          "[fabric]") {
  REQUIRE(sysconf(_SC_PAGESIZE) == 4096);
  constexpr size_t kPages = 1024;  // 4 MiB
  void* p =
      mmap(nullptr, kPages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  CHECK(resident_pages(p, kPages) == 0);  // fresh: nothing faulted in yet
  SECTION("small: nothing") {
    ibw::fabric::populate_for_write(p, 64 * 4096);
    CHECK(resident_pages(p, kPages) == 0);
  }
  SECTION("large: every page, when the kernel can (Linux 5.14 on)") {
    void* probe = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(probe != MAP_FAILED);
    const bool supported = madvise(probe, 4096, MADV_POPULATE_WRITE) == 0 || errno != EINVAL;
    munmap(probe, 4096);
    if (!supported) {
      WARN("this kernel has no MADV_POPULATE_WRITE");
    } else {
      // From the middle of the first page: the whole pages inside the buffer, so not that one.
      ibw::fabric::populate_for_write(static_cast<char*>(p) + 100, kPages * 4096 - 100);
      CHECK(resident_pages(p, kPages) == kPages - 1);
      CHECK(resident_pages(p, 1) == 0);
    }
  }
  munmap(p, kPages * 4096);
}

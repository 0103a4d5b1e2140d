// daemon/memory_stats: reading VmRSS/VmHWM/RssAnon, counting malloc arenas, the process's own
// figures moving with a real allocation, and the "memory" log fields.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>

#include "daemon/memory_stats.h"

using ibw::daemon::MemoryStats;

TEST_CASE("memory stats: proc status fields are read in kB", "[daemon][memory]") {
  MemoryStats s;
  ibw::daemon::parse_proc_status(
      "Name:\tibwarden\nVmPeak:\t  996048 kB\nVmHWM:\t  426568 kB\nVmRSS:\t  416000 kB\n"
      "RssAnon:\t  408968 kB\nRssFile:\t    9975 kB\n",
      s);
  CHECK(s.hwm_kib == 426568);
  CHECK(s.rss_kib == 416000);
  CHECK(s.anon_kib == 408968);
  MemoryStats none;
  ibw::daemon::parse_proc_status("Name:\tx\nXVmRSS:\t 5 kB\n", none);
  CHECK(none.rss_kib == 0);  // only a field at the start of a line counts
  CHECK(none.hwm_kib == 0);
}

TEST_CASE("memory stats: malloc_info arenas are counted", "[daemon][memory]") {
  CHECK(ibw::daemon::count_malloc_arenas("<malloc version=\"1\">\n<heap nr=\"0\">\n</heap>\n"
                                         "<heap nr=\"1\">\n</heap>\n<total type=\"fast\"/>\n"
                                         "</malloc>\n") == 2);
  CHECK(ibw::daemon::count_malloc_arenas("") == 0);
}

TEST_CASE("memory stats: the process's figures follow a real allocation", "[daemon][memory]") {
  MemoryStats before = ibw::daemon::read_memory_stats();
  CHECK(before.rss_kib > 0);
  CHECK(before.hwm_kib >= before.rss_kib);
  CHECK(before.anon_kib > 0);
  CHECK(before.arenas >= 1);
  constexpr size_t kBytes = size_t{64} << 20;
  auto block = std::make_unique<char[]>(kBytes);
  std::memset(block.get(), 1, kBytes);  // touched: resident
  MemoryStats during = ibw::daemon::read_memory_stats();
#ifndef IBW_SANITIZED  // ASan's allocator replaces malloc: glibc's mallinfo2 reads 0 there
  CHECK(during.in_use_kib >= before.in_use_kib + 60 * 1024);
#endif
  CHECK(during.rss_kib >= before.rss_kib + 60 * 1024);
  CHECK(during.hwm_kib >= during.rss_kib);
  volatile char keep = block[kBytes - 1];
  (void)keep;
  block.reset();
  MemoryStats after = ibw::daemon::read_memory_stats();
#ifndef IBW_SANITIZED
  CHECK(after.in_use_kib < during.in_use_kib - 60 * 1024);
#endif
  // The peak stays (the kernel sums RSS per CPU in batches: a few pages of slack).
  CHECK(after.hwm_kib + 4096 >= during.rss_kib);
  CHECK(ibw::daemon::release_free_memory() >= 0);
}

TEST_CASE("memory stats: the log fields are in MiB with the step", "[daemon][memory]") {
  MemoryStats s;
  s.rss_kib = 3 * 1024 + 1000;
  s.hwm_kib = 4 * 1024;
  s.anon_kib = 2 * 1024;
  s.in_use_kib = 1024;
  s.free_kib = 512;
  s.mmapped_kib = 2048;
  s.arenas = 6;
  s.heap = true;
  nlohmann::json f = ibw::daemon::memory_fields(s, "ufm inventory");
  CHECK(f["step"] == "ufm inventory");
  CHECK(f["rss_mib"] == 3);
  CHECK(f["hwm_mib"] == 4);
  CHECK(f["anon_mib"] == 2);
  CHECK(f["heap_in_use_mib"] == 1);
  CHECK(f["heap_free_mib"] == 0);
  CHECK(f["heap_mmapped_mib"] == 2);
  CHECK(f["arenas"] == 6);
  CHECK(f["heap_read"] == true);
  s.heap = false;  // RSS only: no malloc field at all, rather than a 0 that reads as a figure
  f = ibw::daemon::memory_fields(s, "telemetry scrape");
  CHECK(f["heap_read"] == false);
  CHECK(f["rss_mib"] == 3);
  CHECK_FALSE(f.contains("heap_in_use_mib"));
  CHECK_FALSE(f.contains("arenas"));
}

TEST_CASE("memory stats: malloc's figures are read after a trim or at a new peak only",
          "[daemon][memory]") {
  using ibw::daemon::heap_figures_due;
  int64_t last = 0;
  CHECK(heap_figures_due(1000, false, last));  // the first line
  CHECK(last == 1000);
  CHECK_FALSE(heap_figures_due(1000, false, last));  // a steady scrape: RSS only
  CHECK_FALSE(heap_figures_due(900, false, last));
  CHECK(heap_figures_due(900, true, last));  // after the inventory read's trim
  CHECK(last == 1000);                       // (the peak read stays the higher one)
  const int64_t step = ibw::daemon::kHeapFiguresStepKib;
  CHECK_FALSE(heap_figures_due(1000 + step - 1, false, last));  // a peak a little higher
  CHECK(heap_figures_due(1000 + step, false, last));            // a new peak
  CHECK(last == 1000 + step);
  CHECK_FALSE(heap_figures_due(1000 + step, false, last));
  CHECK_FALSE(ibw::daemon::read_memory_stats(false).heap);
  CHECK(ibw::daemon::read_memory_stats(false).rss_kib > 0);
  CHECK(ibw::daemon::read_memory_stats().heap);
}

// Where the daemon's memory goes, read in the process itself: the resident set (VmRSS, and
// its peak VmHWM, from /proc/self/status) beside glibc malloc's own figures (mallinfo2 summed
// over every arena, and the number of arenas from malloc_info). The gap between RSS and the
// heap in use is memory malloc holds but nobody uses (free chunks kept in the arenas), plus
// code, stacks and what is not malloc's (sqlite's page cache is malloc's too).
// Logged as one "memory" line after each telemetry scrape and UFM inventory read, so that
// bench/bench_lab.sh can print the breakdown at the peak. malloc's figures are a walk over
// every free chunk of every arena, each arena locked meanwhile: 150-250 ms on the fragmented
// heap of a k=64 fabric, during which a store write on another thread waited for the lock.
// So the line reads them only when it can matter (log_memory below).
#pragma once

#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ibw::daemon {

struct MemoryStats {
  int64_t rss_kib = 0;      // VmRSS
  int64_t hwm_kib = 0;      // VmHWM: the peak RSS so far
  int64_t anon_kib = 0;     // RssAnon: the anonymous part of VmRSS (the heap, stacks)
  int64_t in_use_kib = 0;   // malloc: allocated and not freed (uordblks + hblkhd)
  int64_t free_kib = 0;     // malloc: free chunks held in the arenas (fordblks)
  int64_t mmapped_kib = 0;  // malloc: of in_use, blocks mmapped on their own (hblkhd)
  int64_t arena_kib = 0;    // malloc: obtained from the system for the arenas (arena)
  int arenas = 0;           // malloc arenas (the main one and one per thread that needed one)
  bool heap = false;        // malloc's figures (in_use .. arenas) were read
};

// The figures now; malloc's too when `heap` (the walk above). Fields that cannot be read stay 0.
MemoryStats read_memory_stats(bool heap = true);

// The values of VmRSS, VmHWM and RssAnon (kB) in the text of a /proc/<pid>/status file (0 when
// absent).
void parse_proc_status(std::string_view status, MemoryStats& out);
// How many arenas ("<heap nr=") a malloc_info XML document lists.
int count_malloc_arenas(std::string_view xml);

// The log fields of s (MiB, rounded down): rss_mib, hwm_mib, anon_mib, and when s.heap
// heap_in_use_mib, heap_free_mib, heap_mmapped_mib, arenas; plus step (what had just run),
// and heap_read (whether malloc's figures are there). heap_in_use counts
// mmapped blocks whole, also pages of them not touched yet (a vector's spare capacity), and
// heap_free free chunks whether resident or not: compare them with anon, not with each other.
nlohmann::json memory_fields(const MemoryStats& s, std::string_view step);

// Gives the free memory malloc keeps back to the system (malloc_trim(0): every arena, also
// free pages between used chunks). The daemon runs with a heap that is never trimmed by itself
// (cli/alloc_tuning.h: no page faults for memory reused every scrape), but each thread
// allocates from an arena of its own, and what one arena keeps free no other thread can use:
// after a big one-off step (the UFM inventory read: hundreds of megabytes parsed on the UFM
// thread) that memory would stay resident beside the telemetry thread's; and before it, what
// the scrapes and store writes keep free would stay resident under its peak. Returns the
// milliseconds it took.
double release_free_memory();

// Logs one "memory" line (info) with memory_fields(read_memory_stats(heap), step), and trim_ms
// when given (>= 0: release_free_memory() ran just before). heap: after a trim (the UFM
// inventory read, which waits for a gap between scrapes), and whenever the peak RSS (VmHWM)
// rose by kHeapFiguresStepKib since malloc's figures were last read, so that the line of a
// new peak has them (a k=64 lab's history fills for 12 minutes, the peak creeping up a few
// MiB a scrape: a walk at each would cost every scrape); a steady daemon logs RSS only.
void log_memory(std::string_view step, double trim_ms = -1);
inline constexpr int64_t kHeapFiguresStepKib = 16 * 1024;
// Whether log_memory reads malloc's figures now: the first time, after a trim, or when hwm_kib
// is kHeapFiguresStepKib above the peak of the last reading (last_heap_hwm_kib, 0 before the
// first; updated when true).
bool heap_figures_due(int64_t hwm_kib, bool trimmed, int64_t& last_heap_hwm_kib);

}  // namespace ibw::daemon

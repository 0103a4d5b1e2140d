// Allocator tuning for big fabrics: glibc's defaults (128 KiB heap growth, trimming freed
// memory at once, 4 KiB pages) make a 65k-endpoint audit, a million-record localize or the
// daemon at 200k ports spend more time in page faults than in their own code (audit: 64k minor
// faults and 0.7 s of system time, against 1.5k and 0.07 s tuned; localize 3.2 s -> 1.8 s).
// ibwarden therefore runs with
//   GLIBC_TUNABLES=mmap_threshold 32 MiB, trim_threshold 4 GiB (a heap kept between sweeps and
//   rounds rather than faulted in again), top_pad 256 MiB, mxfast 0 (kMallocTunables),
//   and, for every tuned command but the daemon, glibc.malloc.hugetlb=1 (transparent huge
//   pages for malloc where the kernel's THP mode is "madvise"). Not for `run`: a daemon frees
//   and maps again hundreds of MB every scrape at scale, and a fresh huge page costs it far
//   more than 4 KiB pages do (allocation may compact memory; a VM's free page reporting hands
//   freed 2 MiB blocks back to the host). At k=64 (393k ports) a scrape's ingest took
//   651-1,237 ms with huge pages and 417-494 ms without (docs/benchmarks.md, 2026-11-29).
// mxfast 0 turns glibc's fastbins off: a poll's batch of events or a sweep's verdicts, freed
// whole, left tens of thousands of small chunks there past the tcache, and the next large
// allocation or free merged them all in one go (malloc_consolidate and unlink_chunk: 7% of
// the OpenSM ingest of a 1M-line log, 16% on its kept lines alone); without fastbins such chunks
// are merged as they are freed. OpenSM ingest 75.7 -> 70.9 ms (side by side), rules all failing 3%
// faster; the k=64 lab kept its goals (worst scrape 0.87 s, peak RSS 1,929 MiB, 2026-11-29). All of
// it is set by re-executing itself once at start (glibc reads tunables only at process start), for
// the commands that load a whole fabric or run for long (kTunedCommands: run, audit, replay,
// localize, probe, route); the quick queries (events, ports...) would only pay a second start-up.
// An operator's own glibc.malloc.* tunables are kept as they are; IBW_MALLOC_TUNING=off turns the
// re-exec off (as do sanitizer builds and valgrind, which replace malloc).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ibw::cli {

// The tunables ibwarden adds (colon-separated, GLIBC_TUNABLES syntax): kMallocTunables for
// every tuned command (alone for `run`), kHugePagesTunable before them for the others.
extern const char* const kMallocTunables;
extern const char* const kHugePagesTunable;
extern const char* const kTunedCommands[6];

// The tunables for one of kTunedCommands.
std::string malloc_tunables(std::string_view command);

// The kTunedCommands entry argv (null-terminated, argv[0] the program) names; null when none.
const char* tuned_command(char** argv);

// The GLIBC_TUNABLES value to run `command` with, given the current one (nullptr when unset)
// and IBW_MALLOC_TUNING (nullptr when unset): nullopt when nothing is to change (tuning off,
// or glibc.malloc.* already chosen, which includes a process this already re-executed).
std::optional<std::string> tuned_glibc_tunables(const char* current, const char* switch_value,
                                                std::string_view command);

// Re-executes this binary (the file /proc/self/exe names) with argv and the tuned GLIBC_TUNABLES
// when tuned_glibc_tunables asks for it. Returns (and the process goes on untuned) when it is not
// needed or exec fails.
void tune_allocator(char** argv);

}  // namespace ibw::cli

// Cache prefetch hints for the passes over every port (rules::History, evaluate(), the store's
// encoders of a scrape).
// __builtin_prefetch alone does not survive in a helper under GCC: its IPA pure-const pass
// takes a function whose only effect is a prefetch for one without side effects and deletes
// the calls before they are inlined (GCC 12 left not one prefetch of evaluate() in the
// binary). The empty volatile asm, which uses the address, keeps each hint where it is
// written. A prefetch never faults, so any address is allowed.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace ibw::fabric {

inline void prefetch_read(const void* p) {
  __builtin_prefetch(p, 0);
  asm volatile("" : : "r"(p));
}
// For a line about to be written (an append).
inline void prefetch_write(const void* p) {
  __builtin_prefetch(p, 1);
  asm volatile("" : : "r"(p));
}

// Every cache line of the `bytes` bytes from p (an object that may straddle a line more).
inline void prefetch_range(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (size_t at = 0; at < bytes; at += 64) prefetch_read(c + at);
  if (bytes) prefetch_read(c + bytes - 1);
}
inline void prefetch_range_write(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (size_t at = 0; at < bytes; at += 64) prefetch_write(c + at);
  if (bytes) prefetch_write(c + bytes - 1);
}

// Maps in, at once, the pages of a large buffer about to be filled (a scrape's readings or
// deltas: hundreds of MB that glibc maps fresh each time), instead of one page fault per 4 KiB
// page as it is written. The whole pages inside [p, p + bytes); nothing when the kernel cannot
// (before Linux 5.14) or the buffer is small.
inline void populate_for_write(void* p, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  constexpr size_t kPage = 4096, kWorthIt = size_t{1} << 20;
  if (bytes < kWorthIt) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~uintptr_t{kPage - 1};
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~uintptr_t{kPage - 1};
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)p, (void)bytes;
#endif
}

}  // namespace ibw::fabric

// Cache prefetch hints for the passes over every port (rules::History, evaluate(), the store's
// encoders of a scrape).
// __builtin_prefetch alone does not survive in a helper under GCC: its IPA pure-const pass
// takes a function whose only effect is a prefetch for one without side effects and deletes
// the calls before they are inlined (GCC 12 left not one prefetch of evaluate() in the
// binary). The empty volatile asm, which uses the address, keeps each hint where it is
// written. A prefetch never faults, so any address is allowed.
#pragma once

#include <cstddef>

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

}  // namespace ibw::fabric

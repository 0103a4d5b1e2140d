// Cache prefetch hints for the passes over every port (rules::History, evaluate(), the store's
// encoders of a scrape).
// __builtin_prefetch alone does not survive in a helper under GCC: its IPA pure-const pass
// takes a function whose only effect is a prefetch for one without side effects and deletes
// the calls before they are inlined (GCC 12 left not one prefetch of evaluate() in the
// binary). The empty volatile asm, which uses the address, keeps each hint where it is
// written. A prefetch never faults, so any address is allowed.
#pragma once

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

}  // namespace ibw::fabric

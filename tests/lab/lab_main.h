// What the long-running lab programs share (tests/lab/ufmlab_main.cpp,
// tests/e2e/fabrics_lab.cpp, bench/web_lab.cpp): a stop flag that SIGTERM and SIGINT set, and
// the wall clock.
//
//   ibw::lab::stop_on_signals();
//   while (!ibw::lab::g_stop) serve_a_while(ibw::lab::now_us());
#pragma once

#include <csignal>
#include <cstdint>

#include "ingest/clock.h"

namespace ibw::lab {

// Set once SIGTERM or SIGINT arrived (after stop_on_signals()).
inline volatile std::sig_atomic_t g_stop = 0;

inline void stop_on_signals() {
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  std::signal(SIGINT, [](int) { g_stop = 1; });
}

// Microseconds since the Unix epoch (UTC).
inline int64_t now_us() {
  return ingest::SystemClock().now_us();
}

}  // namespace ibw::lab

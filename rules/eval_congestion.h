// Private to rules/ (evaluate.cpp): the congestion check of one port (semantics in
// rules/evaluate.h). Congestion is a signal, not a fault: its verdicts are report only.
#pragma once

#include <cstdint>
#include <string>

#include "rules/evaluate.h"

namespace ibw::rules {

// The share of a sweep's interval a port waited to send: PortXmitWait ticks * tick_bits over
// the bits the link could have sent in the interval (capped at 1); 0 when the rate or the
// interval is unknown.
double wait_ratio(uint64_t ticks, double tick_bits, int width, fabric::Speed speed,
                  int64_t interval_us);

// True when rule r (type congestion) fires on port p at now_us; then, when given, *what gets
// the explanation (without rule name and port) and *ev the evidence. Allocates nothing when
// it does not fire.
bool congestion_fires(const Rule& r, const PortWindow& p, int64_t now_us, std::string* what,
                      Evidence* ev);

}  // namespace ibw::rules

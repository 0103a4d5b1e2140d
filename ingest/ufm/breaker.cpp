// Circuit breaker and health; see ufm_breaker.h.
#include "ingest/ufm/breaker.h"

namespace ibw::ingest {

std::string_view breaker_state_name(BreakerState s) {
  switch (s) {
    case BreakerState::closed:
      return "closed";
    case BreakerState::open:
      return "open";
    case BreakerState::half_open:
      return "half_open";
  }
  return "?";
}

std::string_view health_state_name(HealthState s) {
  switch (s) {
    case HealthState::ok:
      return "ok";
    case HealthState::degraded:
      return "degraded";
    case HealthState::down:
      return "down";
  }
  return "?";
}

bool CircuitBreaker::allow() {
  switch (health_.breaker) {
    case BreakerState::closed:
      ++health_.calls;
      return true;
    case BreakerState::open:
      if (clock_.now_us() < health_.open_until_us) {
        ++health_.rejected;
        return false;
      }
      health_.breaker = BreakerState::half_open;
      [[fallthrough]];
    case BreakerState::half_open:
      if (probe_out_) {
        ++health_.rejected;
        return false;
      }
      probe_out_ = true;
      ++health_.calls;
      return true;
  }
  return false;
}

void CircuitBreaker::record_success() {
  probe_out_ = false;
  health_.breaker = BreakerState::closed;
  health_.state = HealthState::ok;
  health_.consecutive_failures = 0;
  health_.open_until_us = 0;
  health_.last_success_us = clock_.now_us();
}

void CircuitBreaker::record_failure(std::string error) {
  ++health_.failures;
  ++health_.consecutive_failures;
  health_.last_failure_us = clock_.now_us();
  health_.last_error = std::move(error);
  if (probe_out_ || health_.consecutive_failures >= options_.failures_to_open) {
    open();
  } else {
    health_.state = HealthState::degraded;
  }
  probe_out_ = false;
}

void CircuitBreaker::open() {
  health_.breaker = BreakerState::open;
  health_.state = HealthState::down;
  health_.open_until_us = clock_.now_us() + options_.cooldown_us;
}

}  // namespace ibw::ingest

// Circuit breaker and health bookkeeping for a remote service (the UFM REST API, UFM Telemetry).
// Pure state, driven by an injected Clock; UfmClient (ufm_client.h) consults it around each
// call. Not thread-safe by itself (UfmClient serialises access).
//
// Breaker:
//  - closed: calls go out. A failed call (after its retries) adds one to the consecutive
//    failures; a success resets them. At `failures_to_open` consecutive failures it opens.
//  - open: calls fail fast without touching the network until `cooldown_us` has passed since
//    it opened; then it is half-open.
//  - half-open: exactly one probe call goes out (without retries); success closes the
//    breaker, failure opens it again for another cool-down.
// Health, as exposed to the service:
//  - ok: the breaker is closed and the last call succeeded (or none was made yet);
//  - degraded: the breaker is closed but the last call(s) failed;
//  - down: the breaker is open or half-open.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ingest/clock.h"

namespace ibw::ingest {

enum class BreakerState : uint8_t { closed, open, half_open };
std::string_view breaker_state_name(BreakerState s);  // "closed", "open", "half_open"

enum class HealthState : uint8_t { ok, degraded, down };
std::string_view health_state_name(HealthState s);  // "ok", "degraded", "down"

struct BreakerOptions {
  int failures_to_open = 5;
  int64_t cooldown_us = 30'000'000;
};

struct ServiceHealth {
  HealthState state = HealthState::ok;
  BreakerState breaker = BreakerState::closed;
  std::string last_error;  // of the last failed call; never holds credentials
  int64_t last_success_us = 0;
  int64_t last_failure_us = 0;
  int64_t open_until_us = 0;  // when open: the earliest time of the half-open probe
  int consecutive_failures = 0;
  uint64_t calls = 0;     // calls attempted (fast failures of an open breaker excluded)
  uint64_t failures = 0;  // calls that failed after their retries
  uint64_t retries = 0;   // extra attempts made within calls
  uint64_t rejected = 0;  // calls refused by the open breaker
};

class CircuitBreaker {
 public:
  CircuitBreaker(const Clock& clock, BreakerOptions options) : clock_(clock), options_(options) {}

  // Whether a call may go out now; moves open -> half-open when the cool-down is over. When it
  // returns true in half-open state, the call is the probe (`probing()`), and further calls are
  // refused until it is reported.
  bool allow();
  bool probing() const { return probe_out_; }
  void record_success();
  void record_failure(std::string error);
  void record_retry() { ++health_.retries; }

  const ServiceHealth& health() const { return health_; }

 private:
  void open();
  const Clock& clock_;
  BreakerOptions options_;
  ServiceHealth health_;
  bool probe_out_ = false;
};

}  // namespace ibw::ingest

// Injected time source for every source with a lifecycle: production uses SystemClock; tests
// use ManualClock to make time-dependent behaviour (rates, windows, timeouts) deterministic.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace ibw::ingest {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time, microseconds since the Unix epoch (UTC).
  virtual int64_t now_us() const = 0;
};

class SystemClock final : public Clock {
 public:
  int64_t now_us() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_us = 1'700'000'000'000'000) : now_(start_us) {}
  int64_t now_us() const override { return now_.load(); }
  void advance_us(int64_t us) { now_ += us; }
  void set_us(int64_t us) { now_ = us; }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace ibw::ingest

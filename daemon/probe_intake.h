// What POST /api/v1/probes may store (issue 31): IntakeQuota, the per-source quota on posted
// observations, and RefusalCounts, the refused inputs by reason for /metrics
// (ibwarden_input_refused_total).
//
// IntakeQuota: per source (the token's actor and the client's address) at most `records`
// observations and `bytes` of request body per fixed window (probes.post_records_per_minute,
// probes.post_bytes_per_minute; one minute). A request that would pass either is refused
// whole: admit() returns the seconds until the source's window ends (Retry-After). The table
// of sources is bounded (kMaxSources; windows that ended are dropped first, then the sources
// share one overflow entry). Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ibw::daemon {

struct IntakeLimits {
  uint64_t records = 50'000;
  uint64_t bytes = uint64_t{8} << 20;
  int64_t window_us = 60'000'000;
};

struct IntakeVerdict {
  int64_t retry_after_s = 0;  // 0: admitted (and counted)
  const char* reason = "";    // "records" | "bytes" when refused
};

class IntakeQuota {
 public:
  static constexpr size_t kMaxSources = 4096;
  explicit IntakeQuota(IntakeLimits limits) : limits_(limits) {}
  IntakeVerdict admit(const std::string& source, uint64_t records, uint64_t bytes, int64_t now_us);
  const IntakeLimits& limits() const { return limits_; }

 private:
  struct Window {
    int64_t start_us = 0;
    uint64_t records = 0, bytes = 0;
  };
  IntakeLimits limits_;
  std::mutex mutex_;
  std::unordered_map<std::string, Window> sources_;
};

// Refused inputs by reason (probe_quota_records, probe_quota_bytes, probe_store_full,
// posted_dropped, spool_*): counters since start. Thread-safe.
class RefusalCounts {
 public:
  void add(const std::string& reason, uint64_t n = 1);
  std::map<std::string, uint64_t> snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, uint64_t> counts_;
};

}  // namespace ibw::daemon

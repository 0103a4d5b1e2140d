// LeaseKeeper: this daemon's side of the fabric's leader lease (config ha:, PostgreSQL only;
// store/store.h Store::take_lease). Every ha.renew the daemon calls tick(): a standby tries to
// take the lease (it succeeds once the holder stopped renewing for ha.lease), the holder
// renews it and publishes its sources' health with it.
//
// held() is what may act: true only while the last successful take or renewal is younger
// than the lease, measured on this host's monotonic clock from just BEFORE that request. The
// server counts the same lease from a later instant, so a holder stops trusting its lease
// before any standby can take it over; a process paused past its lease (SIGSTOP, a VM stall)
// finds held() false the moment it runs again, before any store write could tell it. Writes
// are fenced in the store as well (StoreSpec::fence): held() is the check for what the store
// cannot fence, the SMP that disables a port.
// Thread-safe: tick() from one thread (the lease thread or the standby loop), the getters from
// any.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "config/config.h"
#include "store/store.h"

namespace ibw::daemon {

class LeaseKeeper {
 public:
  // spec: the store without a fence (the keeper's own connection, opened on first use).
  LeaseKeeper(store::StoreSpec spec, const config::HaSection& ha);

  // One take-or-renew. Returns held() afterwards. A store error is logged (once per change)
  // and counts as a renewal that did not happen; the connection is reopened next time.
  bool tick(const std::string& sources_json);
  bool held() const;
  // The fence of the current holding (epoch 0 when never held).
  store::Fence fence() const;
  // The lease row as last read (holder, epoch, expiry on the server's clock).
  store::Lease last() const;
  // Clean shutdown of a holder: gives the lease up so a standby takes over at once.
  void release();
  const std::string& instance() const { return instance_; }

 private:
  using Clock = std::chrono::steady_clock;
  store::StoreSpec spec_;
  std::string instance_;
  int64_t lease_us_;
  std::unique_ptr<store::Store> db_;  // used by tick()/release() only
  mutable std::mutex mutex_;
  store::Lease last_;
  int64_t epoch_ = 0;  // ours while held; 0 = not holding
  Clock::time_point valid_until_{};
  std::string last_error_;
};

}  // namespace ibw::daemon

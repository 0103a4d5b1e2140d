#include "daemon/lease.h"

#include <algorithm>
#include <utility>

#include "daemon/logger.h"

namespace ibw::daemon {

LeaseKeeper::LeaseKeeper(store::StoreSpec spec, const config::HaSection& ha)
    : spec_(std::move(spec)), instance_(ha.instance), lease_us_(ha.lease_us) {
  spec_.fence.reset();
  // A request waiting behind a row lock gives up before the next renewal is due.
  spec_.lock_timeout_ms = std::max<int64_t>(100, ha.renew_us / 2000);
}

bool LeaseKeeper::tick(const std::string& sources_json) {
  int64_t epoch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    epoch = epoch_;
  }
  auto asked = Clock::now();
  store::Lease row;
  try {
    if (!db_) db_ = store::Store::open(spec_);
    row = db_->take_lease(instance_, epoch, lease_us_, sources_json);
  } catch (const std::exception& e) {
    db_.reset();
    std::lock_guard<std::mutex> lock(mutex_);
    if (last_error_ != e.what())
      log(LogLevel::error, "lease not renewed: the store is unreachable",
          {{"fabric", spec_.fabric}, {"instance", instance_}, {"error", e.what()}});
    last_error_ = e.what();
    return Clock::now() < valid_until_ && epoch_ != 0;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  last_error_.clear();
  last_ = row;
  bool ours = row.taken && row.holder == instance_ && row.expires_us > row.now_us &&
              (epoch == 0 || row.epoch == epoch);
  if (ours) {
    if (epoch_ != row.epoch)
      log(LogLevel::info, "lease taken: this instance now watches and acts on the fabric",
          {{"fabric", spec_.fabric}, {"instance", instance_}, {"epoch", row.epoch}});
    epoch_ = row.epoch;
    // A 5% margin for clock rate differences; the server's lease starts later than `asked`.
    valid_until_ = asked + std::chrono::microseconds(lease_us_ - lease_us_ / 20);
  } else if (epoch_ != 0) {
    log(LogLevel::error, "lease lost: another instance holds the fabric",
        {{"fabric", spec_.fabric},
         {"instance", instance_},
         {"epoch", epoch_},
         {"holder", row.holder},
         {"holder_epoch", row.epoch}});
    epoch_ = 0;
    valid_until_ = {};
  }
  return epoch_ != 0 && Clock::now() < valid_until_;
}

bool LeaseKeeper::held() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return epoch_ != 0 && Clock::now() < valid_until_;
}

store::Fence LeaseKeeper::fence() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {instance_, epoch_};
}

store::Lease LeaseKeeper::last() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_;
}

void LeaseKeeper::release() {
  int64_t epoch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    epoch = epoch_;
    epoch_ = 0;
    valid_until_ = {};
  }
  if (!epoch) return;
  try {
    if (!db_) db_ = store::Store::open(spec_);
    if (db_->release_lease(instance_, epoch))
      log(LogLevel::info, "lease released", {{"fabric", spec_.fabric}, {"instance", instance_}});
  } catch (const std::exception& e) {
    log(LogLevel::warning, "lease not released; a standby takes over when it expires",
        {{"fabric", spec_.fabric}, {"error", e.what()}});
  }
}

}  // namespace ibw::daemon

#include "web/stream_reader.h"

namespace ibw::web {

store::Store& StreamReader::open() {
  if (!store_) store_ = backend_.open_store(fabric_, /*writable=*/false);
  return *store_;
}

void StreamReader::new_tick() {
  auto now = std::chrono::steady_clock::now();
  if (tick_us_ > 0 && now - tick_start_ < std::chrono::microseconds(tick_us_)) return;
  tick_start_ = now;
  events_.clear();
  decisions_.clear();
  orders_.reset();
}

std::vector<store::StoredEvent> StreamReader::events(const store::EventQuery& q) {
  return shared(events_, q, [&] { return open().events(q); });
}

std::vector<core::DecisionRecord> StreamReader::decisions(const store::DecisionQuery& q) {
  return shared(decisions_, q, [&] { return open().decisions(q); });
}

std::vector<core::WorkOrder> StreamReader::workorders() {
  std::lock_guard<std::mutex> lock(mutex_);
  new_tick();
  if (orders_) return *orders_;
  store::WorkOrderQuery q;
  q.limit = 0;
  auto rows = guarded([&] { return open().workorders(q); });
  if (tick_us_ > 0) orders_ = rows;
  return rows;
}

int64_t StreamReader::queries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queries_;
}

}  // namespace ibw::web

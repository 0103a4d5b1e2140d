// StreamReader: one reader of the store for all event streams (GET /api/v1/stream) of one
// fabric, so 64 dashboards cost what one does: one store connection, and within one tick
// (tick_us; steady clock) one query per distinct question (events after id X, decisions after
// id Y, every work order), whose answer every stream asking the same in that tick shares. In
// steady state every stream of a fabric is at the newest ids: one query of each kind per tick
// for all of them. A stream catching up (Last-Event-ID) asks, and pays for, its own.
// tick_us 0: no sharing over time (each call queries; an EventStream made without a reader).
// Thread-safe: calls run one at a time on the connection. A failed query drops the connection
// (reopened by the next call) and throws.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "web/backend.h"

namespace ibw::web {

class StreamReader {
 public:
  StreamReader(ApiBackend& backend, std::string fabric, int64_t tick_us)
      : backend_(backend), fabric_(std::move(fabric)), tick_us_(tick_us) {}

  std::vector<store::StoredEvent> events(const store::EventQuery& q);
  std::vector<core::DecisionRecord> decisions(const store::DecisionQuery& q);
  std::vector<core::WorkOrder> workorders();  // all of them
  // f(store) on the shared connection, not shared over time (a stream's start-up scans).
  template <typename F>
  auto with_store(F f) {
    std::lock_guard<std::mutex> lock(mutex_);
    return guarded([&] { return f(open()); });
  }
  int64_t queries() const;  // store queries made so far (for tests and figures)

 private:
  using Key = std::tuple<int64_t, int64_t, size_t>;  // after_id, since_us, limit
  store::Store& open();                              // under mutex_
  void new_tick();  // under mutex_: forgets the answers of an ended tick
  template <typename F>
  auto guarded(F f) {
    try {
      ++queries_;
      return f();
    } catch (...) {
      store_.reset();
      throw;
    }
  }

  // The answer to q from this tick's `answers`, else fetch()ed (and kept when ticks share).
  template <typename Row, typename Query, typename Fetch>
  std::vector<Row> shared(std::map<Key, std::vector<Row>>& answers, const Query& q, Fetch fetch) {
    std::lock_guard<std::mutex> lock(mutex_);
    new_tick();
    Key key{q.after_id, q.since_us, q.limit};
    if (auto it = answers.find(key); it != answers.end()) return it->second;
    auto rows = guarded(fetch);
    if (tick_us_ > 0) answers[key] = rows;
    return rows;
  }

  ApiBackend& backend_;
  std::string fabric_;
  int64_t tick_us_;
  mutable std::mutex mutex_;
  std::unique_ptr<store::Store> store_;
  std::chrono::steady_clock::time_point tick_start_{};
  std::map<Key, std::vector<store::StoredEvent>> events_;
  std::map<Key, std::vector<core::DecisionRecord>> decisions_;
  std::optional<std::vector<core::WorkOrder>> orders_;
  int64_t queries_ = 0;
};

}  // namespace ibw::web

// BatchQueue: bounded multi-producer queue of store write batches. push() waits while the
// queue is full (back-pressure instead of loss); pop_for() waits up to a timeout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

#include "store/store.h"

namespace ibw::daemon {

class BatchQueue {
 public:
  explicit BatchQueue(size_t capacity) : capacity_(capacity) {}

  // Returns false when the queue was closed while waiting.
  bool push(store::WriteBatch batch) {
    std::unique_lock<std::mutex> lock(mutex_);
    not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(batch));
    not_empty_.notify_one();
    return true;
  }

  std::optional<store::WriteBatch> pop_for(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!not_empty_.wait_for(lock, timeout, [&] { return !items_.empty(); })) return std::nullopt;
    store::WriteBatch b = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return b;
  }

  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    not_full_.notify_all();
    not_empty_.notify_all();
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return items_.size();
  }

 private:
  size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable not_full_, not_empty_;
  std::deque<store::WriteBatch> items_;
  bool closed_ = false;
};

}  // namespace ibw::daemon

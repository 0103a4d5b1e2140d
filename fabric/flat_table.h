// FlatTable<T>: uint64_t key -> T, for the state kept per port of a large fabric and looked up
// once per port in every scrape or sweep (the counter tracker, the daemon's port table, the
// correlator): 393,216 ports at k=64, where std::unordered_map's node hops were a third of a
// scrape's ingest (issue 32).
//  - Values live in insertion order in chunks of kChunk: addresses are stable (a pointer stays
//    valid across later inserts) and growing never copies a value.
//  - The index is a FlatMap64 from key to insertion number.
//  - A lookup first tries the entry after the previous hit. Readings come in the same order in
//    every scrape, so a steady scrape walks the values in order, with no hashing and no random
//    memory access; any other order costs one compare more than the index alone.
// Insert-only, like FlatMap64, but any key works (UINT64_MAX included). Not thread-safe for
// writers; const lookups from several threads are safe (the hint is a relaxed atomic that is
// only ever checked against the keys, never trusted).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "fabric/flat_map.h"

namespace ibw::fabric {

template <typename T>
class FlatTable {
 public:
  FlatTable() = default;
  FlatTable(FlatTable&& o) noexcept { *this = std::move(o); }
  FlatTable& operator=(FlatTable&& o) noexcept {
    index_ = std::move(o.index_);
    keys_ = std::move(o.keys_);
    chunks_ = std::move(o.chunks_);
    max_key_ = o.max_key_;
    next_.store(0, std::memory_order_relaxed);
    o.clear();
    return *this;
  }

  void reserve(size_t n) {
    index_.reserve(n);
    keys_.reserve(n);
    chunks_.reserve((n + kChunk - 1) / kChunk);
  }
  size_t size() const { return keys_.size(); }
  bool empty() const { return keys_.empty(); }

  T* find(uint64_t key) {
    const auto i = index_of(key);
    return i ? &at(*i) : nullptr;
  }
  const T* find(uint64_t key) const {
    const auto i = index_of(key);
    return i ? &at(*i) : nullptr;
  }
  bool contains(uint64_t key) const { return index_of(key).has_value(); }
  // Asks for the index memory a lookup of key reads (FlatMap64::prefetch): in a pass in
  // another order than the table's (the port table's is the topology's, a scrape's is UFM's),
  // each lookup is a wait on memory unless asked for a few lookups ahead.
  void prefetch(uint64_t key) const { index_.prefetch(key); }

  // The value of key, default-constructed and added when absent; true when added.
  std::pair<T*, bool> try_emplace(uint64_t key) {
    if (const auto i = index_of(key)) return {&at(*i), false};
    const auto i = static_cast<uint32_t>(keys_.size());
    if (i % kChunk == 0) chunks_.push_back(std::make_unique<T[]>(kChunk));
    keys_.push_back(key);
    if (key == kMaxKey)
      max_key_ = i;
    else
      index_.emplace(key, i);
    next_.store(i + 1, std::memory_order_relaxed);
    return {&at(i), true};
  }
  T& operator[](uint64_t key) { return *try_emplace(key).first; }

  // f(key, value) for every entry, in insertion order.
  template <typename F>
  void for_each(F&& f) {
    for (size_t i = 0; i < keys_.size(); ++i) f(keys_[i], at(i));
  }
  template <typename F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < keys_.size(); ++i) f(keys_[i], at(i));
  }

  void clear() {
    index_.clear();
    keys_.clear();
    chunks_.clear();
    max_key_.reset();
    next_.store(0, std::memory_order_relaxed);
  }

 private:
  static constexpr size_t kChunk = 1024;
  static constexpr uint64_t kMaxKey = UINT64_MAX;  // FlatMap64's empty marker: kept aside

  T& at(size_t i) { return chunks_[i / kChunk][i % kChunk]; }
  const T& at(size_t i) const { return chunks_[i / kChunk][i % kChunk]; }

  std::optional<uint32_t> index_of(uint64_t key) const {
    const uint32_t hint = next_.load(std::memory_order_relaxed);
    std::optional<uint32_t> i;
    if (hint < keys_.size() && keys_[hint] == key)
      i = hint;
    else if (key == kMaxKey)
      i = max_key_;
    else
      i = index_.find(key);
    if (i) next_.store(*i + 1, std::memory_order_relaxed);
    return i;
  }

  FlatMap64 index_;
  std::vector<uint64_t> keys_;  // by insertion number
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::optional<uint32_t> max_key_;
  mutable std::atomic<uint32_t> next_{0};  // where the next lookup looks first
};

}  // namespace ibw::fabric

// FlatMap64: an open-addressing hash map from uint64_t keys to uint32_t values, for the
// port and GUID indexes that are built for every node and port of a 65k-endpoint fabric,
// where std::unordered_map's node allocations dominated the audit's run time.
// Insert-only (no erase); key UINT64_MAX is reserved as the empty marker: it is never stored
// (emplace reports it not inserted) and never found.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fabric/prefetch.h"

namespace ibw::fabric {

class FlatMap64 {
 public:
  void reserve(size_t n) {
    size_t want = 16;
    while (want < n * 2) want <<= 1;
    if (want > keys_.size()) rehash(want);
  }
  // Inserts key -> value unless key is present; returns the stored value and whether it
  // was inserted.
  std::pair<uint32_t, bool> emplace(uint64_t key, uint32_t value) {
    if (key == kEmpty) return {value, false};
    if ((size_ + 1) * 2 > keys_.size()) rehash(keys_.empty() ? 16 : keys_.size() * 2);
    size_t i = slot(key);
    if (keys_[i] == key) return {values_[i], false};
    keys_[i] = key;
    values_[i] = value;
    ++size_;
    return {value, true};
  }
  std::optional<uint32_t> find(uint64_t key) const {
    if (keys_.empty() || key == kEmpty) return std::nullopt;
    size_t i = slot(key);
    if (keys_[i] != key) return std::nullopt;
    return values_[i];
  }
  // Asks for the memory find(key) reads first (its home slot), for a lookup a few steps
  // later in a pass whose keys come in no order the map knows.
  void prefetch(uint64_t key) const {
    if (keys_.empty()) return;
    const size_t i = mix(key) & (keys_.size() - 1);
    prefetch_read(&keys_[i]), prefetch_read(&values_[i]);
  }
  size_t size() const { return size_; }
  void clear() {
    keys_.clear();
    values_.clear();
    size_ = 0;
  }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;
  static uint64_t mix(uint64_t k) {  // splitmix64 finaliser
    k ^= k >> 30;
    k *= 0xbf58476d1ce4e5b9ULL;
    k ^= k >> 27;
    k *= 0x94d049bb133111ebULL;
    return k ^ (k >> 31);
  }
  // The slot holding key, or the empty slot where it would go (linear probing).
  size_t slot(uint64_t key) const {
    size_t mask = keys_.size() - 1;
    size_t i = mix(key) & mask;
    while (keys_[i] != kEmpty && keys_[i] != key) i = (i + 1) & mask;
    return i;
  }
  void rehash(size_t capacity) {
    std::vector<uint64_t> old_keys(capacity, kEmpty);
    std::vector<uint32_t> old_values(capacity);
    old_keys.swap(keys_);
    old_values.swap(values_);
    size_ = 0;
    for (size_t i = 0; i < old_keys.size(); ++i)
      if (old_keys[i] != kEmpty) emplace(old_keys[i], old_values[i]);
  }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> values_;
  size_t size_ = 0;
};

}  // namespace ibw::fabric

namespace ibw::fabric {

// StringIndex: string -> uint32_t, stored as a FlatMap64 of 64-bit string hashes. A hit is
// confirmed against the caller's own copy of the key (key_of(value)); the rare true hash
// collision goes to a small exact map, so results are always exact.
class StringIndex {
 public:
  void reserve(size_t n) { hashed_.reserve(n); }
  // Inserts s -> value unless present; returns the stored value and whether it was inserted.
  template <typename KeyOf>
  std::pair<uint32_t, bool> emplace(std::string_view s, uint32_t value, KeyOf&& key_of) {
    auto [stored, inserted] = hashed_.emplace(std::hash<std::string_view>{}(s), value);
    if (inserted || key_of(stored) == s) return {stored, inserted};
    auto [it, ins] = collided_.emplace(std::string(s), value);
    return {it->second, ins};
  }
  template <typename KeyOf>
  std::optional<uint32_t> find(std::string_view s, KeyOf&& key_of) const {
    auto stored = hashed_.find(std::hash<std::string_view>{}(s));
    if (!stored) return std::nullopt;
    if (key_of(*stored) == s) return stored;
    auto it = collided_.find(std::string(s));
    if (it == collided_.end()) return std::nullopt;
    return it->second;
  }
  void clear() {
    hashed_.clear();
    collided_.clear();
  }

 private:
  FlatMap64 hashed_;
  std::unordered_map<std::string, uint32_t> collided_;
};

}  // namespace ibw::fabric

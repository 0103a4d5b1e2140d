// PortIndex: port key -> position in a vector, for the per-sweep lookups of rule evaluation
// (a port's peer among 100k windows or links). Built once per sweep and read only, so a flat
// open-addressing table (one allocation, linear probing, no node per entry) does what an
// unordered_map did at a fraction of the allocations and cache misses. Internal to rules/.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace ibw::rules {

class PortIndex {
 public:
  // Keys must not be kEmpty (callers use guid * 257 + port). The first value of a key wins.
  explicit PortIndex(size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2) cap <<= 1;
    slots_.assign(cap, Slot{kEmpty, 0});
    mask_ = cap - 1;
  }
  void insert(uint64_t key, uint32_t value) {
    for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_)
      if (slots_[i].key == key) return;
      else if (slots_[i].key == kEmpty) {
        slots_[i] = Slot{key, value};
        return;
      }
  }
  std::optional<uint32_t> find(uint64_t key) const {
    for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return slots_[i].value;
      if (slots_[i].key == kEmpty) return std::nullopt;
    }
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Slot {
    uint64_t key;
    uint32_t value;
  };
  static size_t hash(uint64_t k) {  // splitmix64 finalizer: GUIDs differ in few bits
    k ^= k >> 30;
    k *= 0xbf58476d1ce4e5b9ULL;
    k ^= k >> 27;
    k *= 0x94d049bb133111ebULL;
    return static_cast<size_t>(k ^ (k >> 31));
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

}  // namespace ibw::rules

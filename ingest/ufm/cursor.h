// Which UFM events are new: de-duplication on id, detection of id resets, and a resumable
// cursor. Pure bookkeeping over successive fetches of GET /app/events (no I/O, no clock).
//
// UFM documents no cursor or "since" filter for /app/events (ufm-api.md §2 "Events
// pagination", [H-absence]): every fetch returns the whole retained list, so "new" is decided
// here. Ids are monotonic integers in every example [H] but restart when UFM's event table is
// reset (a UFM restart or re-install; the issue calls for surviving it).
//
// Rules of accept(fetched):
//  - within the fetch, the same event twice (same id and timestamp) counts once;
//  - a reset is detected when (a) the highest fetched id is below the cursor's last id (ids
//    went down), or (b) the fetch holds the cursor's last id, or one of the recently accepted
//    ids, with a different timestamp (ids seen again with different content: the table was
//    reset and grew past our position before we looked);
//  - without a reset, new = id > last id; after a reset, every fetched event is a candidate
//    and the epoch counter goes up;
//  - in both cases events whose dedup key ("ufm:<id>:<timestamp>", ufm_dedup_key) this
//    tracker accepted before are dropped (a bounded memory of recent keys), so a reset
//    misdetected, or a list that repeats old events, gives no duplicates while the process
//    lives; across restarts the store's own de-duplication on dedup_key does the same;
//  - ids below the last id that appear later (out of order) are not delivered: UFM assigns
//    ids in order, and the alternative is re-delivering the whole list.
// The cursor ("ufm1:<epoch>:<last id>:<timestamp digits of the last id, or ->") is what a
// daemon stores with the events it delivered; given back on restart it resumes there.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "ingest/ufm/events.h"

namespace ibw::ingest {

struct UfmEventCursor {
  int64_t epoch = 0;       // resets seen so far
  int64_t last_id = 0;     // 0 = nothing seen yet
  std::string last_stamp;  // ufm_stamp_digits of the last id's timestamp; empty = unknown

  std::string serialize() const;
  static std::optional<UfmEventCursor> parse(const std::string& text);  // nullopt if malformed
  bool operator==(const UfmEventCursor&) const = default;
};

struct UfmAccepted {
  std::vector<UfmEvent> events;  // new, in id order
  bool reset = false;            // an id reset was detected in this fetch
  size_t duplicates = 0;         // fetched events dropped as already seen (beyond id order)
};

class UfmEventTracker {
 public:
  // max_keys bounds the memory of accepted dedup keys (oldest forgotten first).
  explicit UfmEventTracker(std::optional<UfmEventCursor> cursor = std::nullopt,
                           size_t max_keys = 200'000);
  UfmAccepted accept(std::vector<UfmEvent> fetched);
  // Marks everything fetched as seen without delivering it (start at the newest event).
  void skip(const std::vector<UfmEvent>& fetched);
  const UfmEventCursor& cursor() const { return cursor_; }

 private:
  // An event's identity: id and its timestamp to the second as a number (YYYYMMDDHHMMSS),
  // the same identity as the dedup key, without building strings.
  struct Key {
    int64_t id = 0;
    uint64_t stamp = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(static_cast<uint64_t>(k.id) * 0x9E3779B97F4A7C15ull ^ k.stamp);
    }
  };
  static Key key_of(const UfmEvent& e);
  bool remember(const Key& key);  // false when already known
  void recall_tail(const std::vector<UfmEvent>& sorted);

  UfmEventCursor cursor_;
  size_t max_keys_;
  std::unordered_set<Key, KeyHash> keys_;
  std::deque<Key> key_order_;
  std::deque<Key> recent_;  // the last accepted keys, newest last
};

// Digits of a raw UFM timestamp to whole seconds ("2024-05-28 08:03:05.123" ->
// "20240528080305"): the same for both schema generations (6.16 adds milliseconds), so an
// upgrade that drops them changes no key.
std::string ufm_stamp_digits(std::string_view timestamp);

}  // namespace ibw::ingest

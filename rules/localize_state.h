// The localizer's working state (rules/localize.h), shared by its two files:
// localize_build.cpp turns records into items as they are added; localize.cpp ranks suspects.
// Not for other modules.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fabric/dest_tables.h"
#include "fabric/diagnostics.h"
#include "fabric/flat_map.h"
#include "rules/localize.h"

namespace ibw::rules::localize_detail {

// Records with the same endpoints, routing and direction, summed. Small (a million of them at
// k=64): what only items with losses need is kept apart, in State::bad_info.
struct Item {
  uint32_t links_begin = 0, links_end = 0;  // State::pool: port indices with share 1
  uint32_t a = fabric::kNoNode;             // adaptive: source switch
  uint32_t b = fabric::kNoNode;             // adaptive: destination switch
  double sent = 0, bad = 0;
  uint32_t bad_recs = 0, good_recs = 0;
  uint32_t bad_info = UINT32_MAX;  // index in State::bad_info once a record had losses
  bool alive = true;
  bool roundtrip = false;  // adaptive: sprayed b -> a too (the reply), not only a -> b
};
struct BadInfo {
  int64_t last_bad_us = 0;
  std::vector<std::pair<double, std::string>> samples;  // (loss, "src -> dst: lost/sent")
};

// An endpoint as written, resolved once: the port and the switch port it attaches to.
struct End {
  fabric::Endpoint at;
  std::optional<std::pair<uint32_t, int>> attach;  // nullopt: no link up
};

// Endpoint text -> End, for the two lookups every record makes. One cache line per entry,
// with the text in it when it fits (names like "node52822 mlx5_0/1", "0x...GUID/1"): a hit
// costs one memory access where a string-keyed map costs three or more. Exact: a hit compares
// the whole text.
class EndCache {
 public:
  const End* find(std::string_view text) const;
  void insert(std::string_view text, const End& end);

 private:
  static constexpr size_t kInline = 31;
  struct Slot {
    uint64_t hash = 0;  // 0: empty (a text hashing to 0 is stored as 1)
    End end;
    uint32_t len = 0;
    char text[kInline + 1] = {};  // when len <= kInline; else long_texts[index in text]
  };
  std::vector<Slot> slots_;
  std::vector<std::string> long_texts_;
  size_t size_ = 0;
  static uint64_t hash_of(std::string_view text);
  bool holds(const Slot& s, uint64_t h, std::string_view text) const;
};

// Directed routes (and records of huge fabrics) are keyed by their ends and path.
struct PathKey {
  uint64_t src, dst;
  std::string path;
  bool operator==(const PathKey&) const = default;
};
struct PathKeyHash {
  size_t operator()(const PathKey& k) const {
    return std::hash<uint64_t>()(k.src * 0x9E3779B97F4A7C15ULL ^ k.dst) ^
           std::hash<std::string>()(k.path);
  }
};

struct State {
  const fabric::RouteModel& model;
  LocalizeOptions opt;
  std::vector<uint32_t> offset;  // port index = offset[node] + port
  std::vector<Item> items;
  std::vector<BadInfo> bad_info;
  std::vector<uint32_t> pool;  // items' fixed links (fixed routes, host links), item after item
  fabric::DestTables tables;   // minimal routes toward each destination class, kept
  // Per directed link (port index), together: one cache line per link an item touches.
  struct LinkSum {
    double traffic = 0, bad = 0;
    double sig = 0;                           // the items crossing it, as a random sum
    double fixed_traffic = 0, fixed_bad = 0;  // the share-1 part (fixed routes, host links)
  };
  std::vector<LinkSum> sums;
  std::vector<uint32_t> on_start, on_items;  // link -> items with it on a fixed route (CSR)
  std::vector<uint32_t> stamp;               // per item: last group that counted it
  uint32_t epoch = 0;
  size_t observations = 0;
  size_t skipped = 0;             // records whose route is gone (skip_unroutable)
  size_t skipped_unresolved = 0;  // records naming an endpoint not found (skip_unresolved)
  std::vector<fabric::Diagnostic> errors;

  // Building (localize_build.cpp): endpoints by text, items by key.
  EndCache ends;
  fabric::FlatMap64 by_pair;                                  // most records: one integer key
  std::unordered_map<PathKey, uint32_t, PathKeyHash> by_key;  // the rest
  std::vector<uint32_t> fixed;                                // one item's fixed links

  State(const fabric::RouteModel& m, const LocalizeOptions& o);
  uint32_t index(uint32_t node, int port) const {
    return offset[node] + static_cast<uint32_t>(port);
  }
  std::span<const uint32_t> items_on(uint32_t link) const {
    return {on_items.data() + on_start[link], on_start[link + 1] - on_start[link]};
  }
  std::span<const uint32_t> links(const Item& it) const {
    return {pool.data() + it.links_begin, it.links_end - it.links_begin};
  }
  std::pair<uint32_t, int> port_of(uint32_t index) const;
  void add(const ingest::Observation& o, const std::string& file, int line);
  // The items on each link's fixed routes, as one array (counting sort by link).
  void index_fixed_links();

 private:
  std::optional<End> resolve(const std::string& text, const std::string& file, int line,
                             const char* field);
  std::optional<uint32_t> new_item(const ingest::Observation& o, ingest::Routing routing,
                                   const End& src, const End& dst, const std::string& file,
                                   int line);
};

}  // namespace ibw::rules::localize_detail

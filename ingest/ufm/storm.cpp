// Storm grouping of UFM events; see ufm_storm.h for the rule.
#include "ingest/ufm/storm.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_set>

#include "ingest/ufm/cursor.h"

namespace ibw::ingest {
namespace ufm_storm_detail {

enum class Origin : uint8_t { context, held, fresh };

struct Item {
  int64_t t = 0;
  int64_t id = 0;
  Origin origin = Origin::fresh;
  UfmEvent* event = nullptr;  // null for context (already delivered, time only)
};

struct Split {
  std::vector<const Item*> calm;
  std::vector<std::vector<const Item*>> storms;  // members, context ones included
};

// Items sorted by (t, id). See the rule in ufm_storm.h.
Split split(const std::vector<Item>& items, const UfmStormOptions& o) {
  size_t n = items.size();
  std::vector<int> diff(n + 1, 0);
  for (size_t i = 0, j = 0; i < n; ++i) {
    if (items[i].t == 0) continue;  // no time: calm
    j = std::max(j, i);
    while (j < n && items[j].t < items[i].t + o.window_us) ++j;
    if (j - i > o.threshold) {
      ++diff[i];
      --diff[j];
    }
  }
  Split out;
  int depth = 0;
  int64_t prev_t = 0;
  for (size_t i = 0; i < n; ++i) {
    depth += diff[i];
    if (depth <= 0) {
      out.calm.push_back(&items[i]);
      continue;
    }
    if (out.storms.empty() || items[i].t - prev_t >= o.window_us) out.storms.emplace_back();
    out.storms.back().push_back(&items[i]);
    prev_t = items[i].t;
  }
  return out;
}

void sort_items(std::vector<Item>& items) {
  std::sort(items.begin(), items.end(),
            [](const Item& a, const Item& b) { return a.t != b.t ? a.t < b.t : a.id < b.id; });
}

// The summary of a storm's members that were not delivered before; nullopt if none.
std::optional<UfmStorm> summarise(const std::vector<const Item*>& members) {
  UfmStorm s;
  std::map<int, size_t> types;
  for (const Item* m : members) {
    if (!m->event) continue;
    if (s.count == 0 || m->t < s.first_us) {
      s.first_us = m->t;
      s.first_timestamp = m->event->timestamp;
    }
    s.last_us = std::max(s.last_us, m->t);
    s.first_id = s.count == 0 ? m->id : std::min(s.first_id, m->id);
    s.last_id = s.count == 0 ? m->id : std::max(s.last_id, m->id);
    ++types[m->event->type];
    ++s.count;
  }
  if (s.count == 0) return std::nullopt;
  s.by_type.assign(types.begin(), types.end());
  std::stable_sort(s.by_type.begin(), s.by_type.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return s;
}

// Moves the calm events out of the batch the items point into.
std::vector<UfmEvent> calm_events(const std::vector<const Item*>& calm) {
  std::vector<UfmEvent> out;
  out.reserve(calm.size());
  for (const Item* c : calm)
    if (c->event) out.push_back(std::move(*c->event));
  auto by_id = [](const UfmEvent& a, const UfmEvent& b) { return a.id < b.id; };
  if (!std::is_sorted(out.begin(), out.end(), by_id))
    std::stable_sort(out.begin(), out.end(), by_id);
  return out;
}

}  // namespace ufm_storm_detail

UfmStormSplit split_storms(std::vector<UfmEvent> events, const UfmStormOptions& options) {
  namespace d = ufm_storm_detail;
  std::vector<d::Item> items;
  items.reserve(events.size());
  for (UfmEvent& e : events) items.push_back({e.time_us, e.id, d::Origin::fresh, &e});
  d::sort_items(items);
  d::Split parts = d::split(items, options);
  UfmStormSplit out;
  for (const auto& members : parts.storms)
    if (auto s = d::summarise(members)) out.storms.push_back(std::move(*s));
  out.calm = d::calm_events(parts.calm);
  return out;
}

Event storm_event(const UfmStorm& s) {
  Event e;
  e.time_us = s.first_us;
  e.source = EventSource::ufm;
  e.kind = std::string(ufm_kind::storm);
  e.severity = Severity::warning;
  char span[64];
  std::snprintf(span, sizeof span, "%.1f s", static_cast<double>(s.last_us - s.first_us) / 1e6);
  e.message = "UFM event storm: " + std::to_string(s.count) + " events in " + span + " (ids " +
              std::to_string(s.first_id) + "-" + std::to_string(s.last_id) + ";";
  for (size_t i = 0; i < s.by_type.size() && i < 5; ++i)
    e.message += (i ? ", " : " ") + std::to_string(s.by_type[i].first) + " x" +
                 std::to_string(s.by_type[i].second);
  if (s.by_type.size() > 5) e.message += ", ...";
  e.message += ")";
  e.dedup_key =
      "ufm-storm:" + std::to_string(s.first_id) + ":" + ufm_stamp_digits(s.first_timestamp);
  return e;
}

UfmStormSplit UfmStormGrouper::feed(std::vector<UfmEvent> batch) {
  namespace d = ufm_storm_detail;
  std::vector<UfmEvent> held = std::move(held_);
  held_.clear();
  std::vector<d::Item> items;
  items.reserve(recent_.size() + held.size() + batch.size());
  for (int64_t t : recent_) items.push_back({t, 0, d::Origin::context, nullptr});
  for (UfmEvent& e : held) items.push_back({e.time_us, e.id, d::Origin::held, &e});
  for (UfmEvent& e : batch) items.push_back({e.time_us, e.id, d::Origin::fresh, &e});
  d::sort_items(items);
  d::Split parts = d::split(items, options_);

  int64_t newest = 0;
  for (const d::Item& it : items)
    if (it.event) newest = std::max(newest, it.t);
  const int64_t tail_start = newest - options_.window_us;  // the batch's last window: t > this
  size_t tail = 0;
  for (const d::Item& it : items)
    if (it.t != 0 && it.t > tail_start) ++tail;

  UfmStormSplit out;
  std::vector<const d::Item*> deliver;
  std::unordered_set<const d::Item*> now_held;
  for (const d::Item* c : parts.calm) {
    if (newest != 0 && tail > options_.hold_threshold && c->origin == d::Origin::fresh &&
        c->t > tail_start) {
      held_.push_back(*c->event);
      now_held.insert(c);
    } else {
      deliver.push_back(c);
    }
  }
  for (const auto& members : parts.storms)
    if (auto s = d::summarise(members)) out.storms.push_back(std::move(*s));
  out.calm = d::calm_events(deliver);  // moves: the items' events are not read after this

  // What the next batch must count: everything near the newest event except what is held.
  recent_.clear();
  for (const d::Item& it : items)
    if (it.t != 0 && it.t > tail_start && !now_held.count(&it)) recent_.push_back(it.t);
  return out;
}

}  // namespace ibw::ingest

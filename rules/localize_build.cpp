// The localizer's first step (rules/localize.h): records resolved and summed into items, one
// per (source, destination, routing, one-way or round trip), as they are added.
#include <algorithm>
#include <cstring>

#include "rules/localize_state.h"

namespace ibw::rules::localize_detail {

State::State(const fabric::RouteModel& m, const LocalizeOptions& o) : model(m), opt(o), tables(m) {
  const fabric::Fabric& f = m.fabric();
  offset.resize(f.size() + 1);
  for (uint32_t i = 0; i < f.size(); ++i)
    offset[i + 1] = offset[i] + static_cast<uint32_t>(f.node(i).ports.size());
  sums.assign(offset.back(), LinkSum{});
}

std::pair<uint32_t, int> State::port_of(uint32_t index) const {
  auto it = std::upper_bound(offset.begin(), offset.end(), index);
  uint32_t node = static_cast<uint32_t>(it - offset.begin() - 1);
  return {node, static_cast<int>(index - offset[node])};
}

namespace {

double bad_of(const ingest::Observation& o) {
  double b = static_cast<double>(o.lost + o.slow);
  if (o.gbps && o.expected_gbps && *o.expected_gbps > 0 && *o.gbps < 0.9 * *o.expected_gbps)
    b += static_cast<double>(o.sent) * (1 - *o.gbps / *o.expected_gbps);
  return std::min(b, static_cast<double>(o.sent));
}

}  // namespace

uint64_t EndCache::hash_of(std::string_view text) {
  uint64_t h = std::hash<std::string_view>{}(text);
  return h ? h : 1;
}

bool EndCache::holds(const Slot& s, uint64_t h, std::string_view text) const {
  if (s.hash != h || s.len != text.size()) return false;
  if (s.len <= kInline) return std::string_view(s.text, s.len) == text;
  uint32_t i = 0;
  std::memcpy(&i, s.text, sizeof i);
  return long_texts_[i] == text;
}

const End* EndCache::find(std::string_view text) const {
  if (slots_.empty()) return nullptr;
  const uint64_t h = hash_of(text);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    if (slots_[i].hash == 0) return nullptr;
    if (holds(slots_[i], h, text)) return &slots_[i].end;
  }
}

void EndCache::insert(std::string_view text, const End& end) {
  if ((size_ + 1) * 2 > slots_.size()) {  // grow: at most half full
    std::vector<Slot> old(std::max<size_t>(64, slots_.size() * 2));
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.hash)
        for (size_t i = s.hash & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1))
          if (!slots_[i].hash) {
            slots_[i] = s;
            break;
          }
  }
  const uint64_t h = hash_of(text);
  size_t i = h & (slots_.size() - 1);
  while (slots_[i].hash) i = (i + 1) & (slots_.size() - 1);
  Slot& s = slots_[i];
  s.hash = h, s.end = end, s.len = static_cast<uint32_t>(text.size());
  if (text.size() <= kInline) {
    std::memcpy(s.text, text.data(), text.size());
  } else {
    uint32_t index = static_cast<uint32_t>(long_texts_.size());
    long_texts_.emplace_back(text);
    std::memcpy(s.text, &index, sizeof index);
  }
  ++size_;
}

std::optional<End> State::resolve(const std::string& text, const std::string& file, int line,
                                  const char* field) {
  if (const End* e = ends.find(text)) return *e;
  std::string err;
  auto e = model.resolve(text, &err);
  if (!e) {
    if (!opt.skip_unresolved) errors.push_back({file, line, field, err});
    return std::nullopt;
  }
  End end{*e, model.attach(*e)};
  ends.insert(text, end);
  return end;
}

// A new item for the record's route; nullopt (an error or a skip) when the route is gone.
std::optional<uint32_t> State::new_item(const ingest::Observation& o, ingest::Routing routing,
                                        const End& src, const End& dst, const std::string& file,
                                        int line) {
  fixed.clear();
  Item item;
  item.roundtrip = o.roundtrip;
  std::vector<fabric::LinkShare> links;
  std::string err;
  bool ok = true;
  if (routing == ingest::Routing::adaptive) {
    ok = src.attach && dst.attach;
    if (!ok) err = "an endpoint has no link up";
    // A CA's host link: into the fabric at src, out of it at dst; both ways for a round trip.
    if (ok && src.attach->second) {
      fixed.push_back(index(src.at.node, src.at.port));
      if (o.roundtrip) fixed.push_back(index(src.attach->first, src.attach->second));
    }
    if (ok && dst.attach->second) {
      fixed.push_back(index(dst.attach->first, dst.attach->second));
      if (o.roundtrip) fixed.push_back(index(dst.at.node, dst.at.port));
    }
    if (ok && src.attach->first != dst.attach->first)
      item.a = src.attach->first, item.b = dst.attach->first;
  } else if (routing == ingest::Routing::static_lft) {
    ok = model.static_route(src.at, dst.at, &links, &err, o.roundtrip);
  } else {
    ok = model.directed_route(src.at, o.path, &links, &err, o.roundtrip);
  }
  if (!ok) {
    if (opt.skip_unroutable)
      ++skipped;
    else
      errors.push_back({file, line, routing == ingest::Routing::directed ? "path" : "dst", err});
    return std::nullopt;
  }
  for (const auto& l : links) fixed.push_back(index(l.node, l.port));
  std::sort(fixed.begin(), fixed.end());
  fixed.erase(std::unique(fixed.begin(), fixed.end()), fixed.end());
  item.links_begin = static_cast<uint32_t>(pool.size());
  pool.insert(pool.end(), fixed.begin(), fixed.end());
  item.links_end = static_cast<uint32_t>(pool.size());
  items.push_back(std::move(item));
  return static_cast<uint32_t>(items.size() - 1);
}

void State::add(const ingest::Observation& o, const std::string& file, int line) {
  ++observations;
  auto routing = o.routing == ingest::Routing::unspecified ? opt.default_routing : o.routing;
  const std::optional<End> src = resolve(o.src, file, line, "src");
  const std::optional<End> dst = resolve(o.dst, file, line, "dst");
  if (!src || !dst) {
    if (opt.skip_unresolved) ++skipped_unresolved;
    return;
  }
  const uint64_t a_key = uint64_t{src->at.node} << 9 | static_cast<uint64_t>(src->at.port);
  const uint64_t b_key = uint64_t{dst->at.node} << 9 | static_cast<uint64_t>(dst->at.port);
  // Most records: both ends, the routing and the direction in one integer key (nodes < 2^20).
  const bool flat = o.path.empty() && src->at.node < (1u << 20) && dst->at.node < (1u << 20);
  const uint64_t way = o.roundtrip ? 1 : 0;
  const uint64_t pair_key = way << 60 | a_key << 31 | b_key << 2 | static_cast<uint64_t>(routing);
  PathKey key;
  std::optional<uint32_t> found;
  if (flat) {
    found = by_pair.find(pair_key);
  } else {
    key = PathKey{a_key, b_key | static_cast<uint64_t>(routing) << 60 | way << 62, {}};
    for (int p : o.path) key.path += std::to_string(p) + ",";
    if (auto it = by_key.find(key); it != by_key.end()) found = it->second;
  }
  if (!found) {
    found = new_item(o, routing, *src, *dst, file, line);
    if (!found) return;
    if (flat)
      by_pair.emplace(pair_key, *found);
    else
      by_key.emplace(std::move(key), *found);
  }
  Item& item = items[*found];
  double b = bad_of(o);
  item.sent += static_cast<double>(o.sent);
  item.bad += b;
  if (b <= 0) {
    ++item.good_recs;
    return;
  }
  ++item.bad_recs;
  if (item.bad_info == UINT32_MAX) {
    item.bad_info = static_cast<uint32_t>(bad_info.size());
    bad_info.emplace_back();
  }
  BadInfo& info = bad_info[item.bad_info];
  info.last_bad_us = std::max(info.last_bad_us, o.time_us);
  double loss = o.sent ? b / static_cast<double>(o.sent) : 1;
  if (info.samples.size() < 3 || loss > info.samples.back().first) {
    info.samples.push_back({loss, o.src + " -> " + o.dst + ": " + std::to_string(o.lost + o.slow) +
                                      "/" + std::to_string(o.sent)});
    std::sort(info.samples.rbegin(), info.samples.rend());
    if (info.samples.size() > 3) info.samples.pop_back();
  }
}

void State::index_fixed_links() {
  on_start.assign(offset.back() + 1, 0);
  for (const Item& it : items)
    for (uint32_t l : links(it)) ++on_start[l + 1];
  for (size_t l = 0; l + 1 < on_start.size(); ++l) on_start[l + 1] += on_start[l];
  on_items.resize(on_start.back());
  std::vector<uint32_t> next(on_start.begin(), on_start.end() - 1);
  for (uint32_t i = 0; i < items.size(); ++i)
    for (uint32_t l : links(items[i])) on_items[next[l]++] = i;
}

}  // namespace ibw::rules::localize_detail

#include "rules/history.h"

#include <algorithm>

#include "fabric/flat_map.h"
#include "ingest/ufm/events.h"

namespace ibw::rules {

int64_t longest_window(const RuleSet& rules) {
  int64_t w = 60'000'000;
  for (const auto& r : rules.rules)
    if (r.enabled) w = std::max(w, r.window_us);
  return w;
}

EventNeeds event_needs(const RuleSet& rules) {
  EventNeeds n;
  for (const auto& r : rules.rules) {
    if (!r.enabled) continue;
    n.link |= r.type == RuleType::link_flap || r.confirm == Confirm::errors_and_flap;
    n.ufm_ber |= r.type == RuleType::ufm_high_ber;
  }
  return n;
}

bool needed(const ingest::Event& e, EventNeeds needs) {
  if (!e.node_guid || !e.port) return false;
  if (e.kind == ingest::kind::link_down || e.kind == ingest::kind::link_up) return needs.link;
  if (e.kind == ingest::ufm_kind::high_ber || e.kind == ingest::ufm_kind::high_ber_cleared)
    return needs.ufm_ber;
  return false;
}

bool History::add_delta(const ingest::CounterDelta& d) {
  bool rose = false;
  for (size_t i = 0; i < ingest::kCounterCount && !rose; ++i)
    rose = (d.valid >> i & 1u) && d.delta[i] &&
           ingest::is_error_counter(static_cast<ingest::Counter>(i));
  if (!rose) return false;
  auto& q = ports_[key(d.sample.node_guid, d.sample.port)].deltas;
  auto at = std::upper_bound(q.begin(), q.end(), d.sample.time_us,
                             [](int64_t t, const WindowDelta& x) { return t < x.time_us; });
  q.insert(at, WindowDelta::of(d));
  return true;
}

void History::add_link_event(uint64_t node_guid, int port, int64_t time_us, bool down) {
  auto& q = ports_[key(node_guid, port)].events;
  LinkEvent e{time_us, down, false};
  auto at = std::upper_bound(q.begin(), q.end(), time_us,
                             [](int64_t t, const LinkEvent& x) { return t < x.time_us; });
  q.insert(at, e);
}

void History::add_ber_event(const ingest::Event& e) {
  auto& q = ports_[key(e.node_guid, e.port)].ber;
  BerEvent b{e.time_us, e.kind == ingest::ufm_kind::high_ber_cleared, e.severity, e.source,
             e.message};
  auto at = std::upper_bound(q.begin(), q.end(), e.time_us,
                             [](int64_t t, const BerEvent& x) { return t < x.time_us; });
  q.insert(at, std::move(b));
}

bool History::add_event(const ingest::Event& e) {
  if (!e.node_guid || !e.port) return false;
  bool down = e.kind == ingest::kind::link_down;
  if (down || e.kind == ingest::kind::link_up) {
    add_link_event(e.node_guid, e.port, e.time_us, down);
    return true;
  }
  if (e.kind != ingest::ufm_kind::high_ber && e.kind != ingest::ufm_kind::high_ber_cleared)
    return false;
  add_ber_event(e);
  return true;
}

void History::prune(int64_t now_us) {
  int64_t cutoff = now_us - keep_us_;
  for (auto it = ports_.begin(); it != ports_.end();) {
    auto& e = it->second;
    auto keep = std::find_if(e.deltas.begin(), e.deltas.end(),
                             [&](const WindowDelta& d) { return d.time_us > cutoff; });
    e.deltas.erase(e.deltas.begin(), keep);
    while (!e.events.empty() && e.events.front().time_us <= cutoff) e.events.pop_front();
    while (!e.ber.empty() && e.ber.front().time_us <= cutoff) e.ber.pop_front();
    bool empty = e.deltas.empty() && e.events.empty() && e.ber.empty();
    it = empty ? ports_.erase(it) : std::next(it);
  }
}

void History::clear_port(uint64_t node_guid, int port) {
  ports_.erase(key(node_guid, port));
}

const History::Entry* History::find(uint64_t guid, int port) const {
  auto it = ports_.find(key(guid, port));
  return it == ports_.end() ? nullptr : &it->second;
}

bool History::has_data(const LinkInfo& link) const {
  return find(link.node_guid, link.port) ||
         (link.peer_guid && find(link.peer_guid, link.peer_port));
}

PortWindow History::window(const LinkInfo& link) const {
  PortWindow w;
  w.node_guid = link.node_guid, w.port = link.port;
  w.peer_guid = link.peer_guid, w.peer_port = link.peer_port;
  w.active_width = link.active_width, w.active_speed = link.active_speed;
  w.plan_width = link.plan_width, w.plan_speed = link.plan_speed;
  w.enabled_width = link.enabled_width, w.enabled_speed = link.enabled_speed;
  if (const Entry* own = find(link.node_guid, link.port)) {
    w.delta_view = own->deltas;
    w.events.assign(own->events.begin(), own->events.end());
    w.ber_events.assign(own->ber.begin(), own->ber.end());
  }
  if (const Entry* peer = link.peer_guid ? find(link.peer_guid, link.peer_port) : nullptr) {
    for (LinkEvent e : peer->events) {
      e.from_peer = true;
      w.events.push_back(e);
    }
    std::stable_sort(w.events.begin(), w.events.end(),
                     [](const LinkEvent& a, const LinkEvent& b) { return a.time_us < b.time_us; });
  }
  return w;
}

namespace history_detail {
bool below_expected(const LinkInfo& l) {
  auto below = [&](int width, fabric::Speed speed) {
    return (width && l.active_width && l.active_width < width) ||
           (speed != fabric::Speed::unknown && l.active_speed != fabric::Speed::unknown &&
            l.active_speed < speed);
  };
  return below(l.plan_width, l.plan_speed) || below(l.enabled_width, l.enabled_speed);
}
}  // namespace history_detail

std::vector<PortWindow> History::windows(const std::vector<LinkInfo>& links) const {
  // A link is worth evaluating with data on either end or a rate below expectation; its peer
  // comes along so that both_ends confirmation sees a clean peer as observed.
  fabric::FlatMap64 index;
  index.reserve(links.size());
  for (size_t i = 0; i < links.size(); ++i)
    index.emplace(key(links[i].node_guid, links[i].port), static_cast<uint32_t>(i));
  std::vector<char> take(links.size(), 0);
  size_t taken = 0;
  for (size_t i = 0; i < links.size(); ++i) {
    const auto& l = links[i];
    if (!has_data(l) && !history_detail::below_expected(l)) continue;
    taken += !take[i];
    take[i] = 1;
    if (auto at = l.peer_guid ? index.find(key(l.peer_guid, l.peer_port)) : std::nullopt)
      taken += !take[*at], take[*at] = 1;
  }
  std::vector<PortWindow> out;
  out.reserve(taken);
  for (size_t i = 0; i < links.size(); ++i)
    if (take[i]) out.push_back(window(links[i]));
  return out;
}

}  // namespace ibw::rules

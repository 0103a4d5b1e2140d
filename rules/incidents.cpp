// Incident grouping; see incidents.h.
#include "rules/incidents.h"

#include <algorithm>
#include <set>

#include "fabric/model.h"

namespace ibw::rules {

namespace {

constexpr size_t kMaxIncidents = 1024;            // resolved ones beyond this are dropped
constexpr int64_t kKeepUs = 24LL * 3600'000'000;  // resolved ones older than this are dropped

}  // namespace

IncidentTracker::IncidentTracker(IncidentOptions options) : opt_(options) {}

void IncidentTracker::learn(const std::vector<LinkInfo>& links) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (links.data() == learned_ && links.size() == learned_size_) return;
  learned_ = links.data(), learned_size_ = links.size();
  for (const auto& l : links) {
    connect({l.node_guid, l.port}, {l.peer_guid, l.peer_port});
    switch_[l.node_guid] = l.switch_node;
    switch_[l.peer_guid] = l.peer_switch;
  }
}

void IncidentTracker::connect(End a, End b) {
  if (!a.guid || !b.guid) return;
  auto old = peer_.find(a);
  if (old != peer_.end() && old->second == b) return;
  for (End e : {a, b})  // a port re-cabled to another peer leaves its old link
    if (auto it = peer_.find(e); it != peer_.end()) peer_.erase(it->second), peer_.erase(it);
  peer_[a] = b, peer_[b] = a;
  for (End e : {a, b}) {
    auto& ports = node_ports_[e.guid];
    if (std::find(ports.begin(), ports.end(), e) == ports.end()) ports.push_back(e);
  }
}

IncidentTracker::End IncidentTracker::link_id(End e) const {
  auto it = peer_.find(e);
  return it == peer_.end() ? e : std::min(e, it->second);
}

bool IncidentTracker::wants(const ingest::Event& e) {
  namespace k = ingest::kind;
  return e.kind == k::link_down || e.kind == k::link_up || e.kind == k::port_unresponsive ||
         e.kind == k::sweep || e.kind == k::subnet_up;
}

std::vector<ingest::Event> IncidentTracker::add(const std::vector<ingest::Event>& events) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<ingest::Event> out;
  for (const auto& e : events) {
    if (!e.node.empty() && e.node_guid) names_[e.node_guid] = e.node;
    if (!e.peer_node.empty() && e.peer_guid) names_[e.peer_guid] = e.peer_node;
    if (e.kind == ingest::kind::link_down || e.kind == ingest::kind::link_up)
      on_link(e, e.kind == ingest::kind::link_down, out);
    else if (e.kind == ingest::kind::port_unresponsive)
      on_unresponsive(e, out);
    else if (e.kind == ingest::kind::sweep || e.kind == ingest::kind::subnet_up)
      last_sweep_us_ = e.time_us, resweep_.clear();
  }
  if (!events.empty()) prune(events.back().time_us);
  return out;
}

Incident* IncidentTracker::incident_of(End link, int64_t now_us) {
  for (auto it = incidents_.rbegin(); it != incidents_.rend(); ++it)
    if (state_of(*it, now_us) == "active" && it->links.count(link)) return &*it;
  return nullptr;
}

void IncidentTracker::on_link(const ingest::Event& e, bool down, std::vector<ingest::Event>& out) {
  if (!e.node_guid || !e.port) return;
  End a{e.node_guid, e.port};
  if (e.peer_guid) connect(a, {e.peer_guid, e.peer_port});
  End id = link_id(a);
  int64_t& down_at = down_at_[id];
  bool was_down = down_at != 0;
  down_at = down ? (was_down ? down_at : e.time_us) : 0;
  // Each end reports the same up (OpenSM logs a link from both sides): the second copy, or
  // any up shortly after the link came up from down, is not a link "never seen down".
  auto up = up_at_.find(id);  // (looked up, not inserted: most events are no up after a down)
  bool came_up_lately = up != up_at_.end() && e.time_us - up->second <= opt_.burst_us;
  if (!down && was_down) up_at_[id] = e.time_us;
  for (auto& i : incidents_)
    if (!i.lone.empty()) release_lone(i, e.time_us);
  // Every active incident holding the link sees its event: a link between two switches that
  // both rebooted lately is in both, and the one rebooting now must count this cycle (when
  // only the latest saw it, a leaf rebooting again after its spine did lost its uplinks to
  // the spine's incident, counted no more cycles and left them to the flap rule).
  // With each holder, whether its switch is losing most of its links right now (a down).
  std::vector<std::pair<Incident*, bool>> holders;
  for (auto& i : incidents_) {
    // Failing counter queries were only a guess at the cause: a link event may still show the
    // switch in front of those hosts rebooting (that incident then takes theirs in).
    if (i.kind == "hosts_unreachable" || !i.links.count(id) || state_of(i, e.time_us) != "active")
      continue;
    // An sm_resweep explains ups never seen down; a link of it going down is a fault of its own.
    if (i.kind == "sm_resweep" && down) {
      i.links.erase(id);
      continue;
    }
    bool bursting =
        down && !was_down && i.kind == "switch_reboot" && burst_of(i.node_guid, e.time_us);
    holders.emplace_back(&i, bursting);
  }
  bool explained = false;
  for (const auto& [inc, bursting] : holders) explained |= bursting;
  for (const auto& [inc, bursting] : holders)
    on_held_link(*inc, id, e, down, was_down, bursting, explained, out);
  if (!holders.empty()) return;
  if (down && !was_down) {
    std::vector<uint64_t> ends = {a.guid};
    if (auto p = peer_.find(a); p != peer_.end()) ends.push_back(p->second.guid);
    for (uint64_t node : ends)  // a switch that lost most of its links at once
      if (switch_[node] && burst_of(node, e.time_us) && open("switch_reboot", node, e, out)) return;
    for (uint64_t node : ends)  // a host whose every link is down
      if (!switch_[node] && all_down(node) && open("host_down", node, e, out)) return;
  }
  if (!down && !was_down && !came_up_lately && last_sweep_us_ &&
      e.time_us - last_sweep_us_ <= opt_.burst_us) {
    resweep_.insert(id);  // up, never seen down, right after a sweep: the SM re-initialising
    if (static_cast<int>(resweep_.size()) >= opt_.resweep_links) {
      Incident& sweep = make("sm_resweep", 0, e);
      for (End l : resweep_) sweep.links.insert(l);
      sweep.events = static_cast<int>(resweep_.size());
      out.push_back(feed_event(sweep, e));
      resweep_.clear();
    }
  }
}

void IncidentTracker::on_held_link(Incident& inc, End id, const ingest::Event& e, bool down,
                                   bool was_down, bool bursting, bool explained,
                                   std::vector<ingest::Event>& out) {
  ++inc.events, inc.last_us = e.time_us;
  if (down && !was_down) {
    const bool first_down = links_down(inc) == 1;  // this one (down_at_ has it already)
    bool cycle = first_down;  // host_down and the others: every time all were up
    if (inc.kind == "switch_reboot") {
      if (first_down) inc.cycle_counted = false;
      // Most of the switch's links at once: it rebooted again; else this link, alone so far.
      cycle = !inc.cycle_counted && bursting;
      if (cycle) {
        // Its links that went down "alone" so far went down with it, here and in any other
        // incident that holds them (the far end's switch, rebooted earlier).
        inc.cycle_counted = true, inc.lone.clear();
        for (auto& other : incidents_)
          if (&other != &inc && !other.lone.empty())
            for (End l : inc.links) other.lone.erase(l);
      } else if (!inc.cycle_counted && !explained) {
        inc.lone.emplace(id, e.time_us);
      }
    }
    if (cycle) {
      ++inc.cycles;
      out.push_back(feed_event(inc, e));
    }
  }
  inc.down = links_down(inc);
  inc.down_since_us = inc.down == static_cast<int>(inc.links.size()) ? e.time_us : 0;
}

int IncidentTracker::links_down(const Incident& inc) const {
  int n = 0;
  for (End l : inc.links) {
    auto d = down_at_.find(l);
    n += d != down_at_.end() && d->second;
  }
  return n;
}

void IncidentTracker::release_lone(Incident& inc, int64_t now_us) {
  for (auto it = inc.lone.begin(); it != inc.lone.end();) {
    if (it->second >= now_us - opt_.burst_us) {
      ++it;
      continue;
    }
    inc.links.erase(it->first);
    it = inc.lone.erase(it);
  }
  inc.down = links_down(inc);
}

void IncidentTracker::on_unresponsive(const ingest::Event& e, std::vector<ingest::Event>& out) {
  End a{e.node_guid, e.port};
  End id = link_id(a);
  if (Incident* inc = incident_of(id, e.time_us)) {
    ++inc->events, inc->last_us = std::max(inc->last_us, e.time_us);
    return;
  }
  auto p = peer_.find(a);
  if (switch_[a.guid] || p == peer_.end()) return;  // hosts behind a known switch only
  auto& seen = unresponsive_[p->second.guid];
  std::erase_if(seen, [&](const auto& s) { return s.first < e.time_us - opt_.burst_us; });
  seen.emplace_back(e.time_us, id);
  std::set<End> hosts;
  for (const auto& s : seen) hosts.insert(s.second);
  if (hosts.size() < 2) return;
  Incident& inc = make("hosts_unreachable", p->second.guid, e);
  inc.links = hosts;
  inc.events = static_cast<int>(seen.size());
  seen.clear();
  out.push_back(feed_event(inc, e));
}

bool IncidentTracker::burst_of(uint64_t node, int64_t now_us) const {
  auto it = node_ports_.find(node);
  if (it == node_ports_.end()) return false;
  size_t at_once = 0;
  for (End p : it->second) {
    auto d = down_at_.find(link_id(p));
    at_once += d != down_at_.end() && d->second && d->second >= now_us - opt_.burst_us;
  }
  return at_once >= 2 && 2 * at_once > it->second.size();
}

bool IncidentTracker::all_down(uint64_t node) const {
  auto it = node_ports_.find(node);
  if (it == node_ports_.end() || it->second.empty()) return false;
  for (End p : it->second) {
    auto d = down_at_.find(link_id(p));
    if (d == down_at_.end() || !d->second) return false;
  }
  return true;
}

bool IncidentTracker::open(const std::string& kind, uint64_t node, const ingest::Event& e,
                           std::vector<ingest::Event>& out) {
  std::set<End> links;
  for (End p : node_ports_[node]) links.insert(link_id(p));
  // Incidents the new one explains (a host_down of a host on a rebooting leaf) fold into it.
  int folded = 0;
  std::erase_if(incidents_, [&](const Incident& old) {
    if (state_of(old, e.time_us) != "active" || old.kind == "sm_resweep") return false;
    for (End l : old.links)
      if (!links.count(l)) return false;
    folded += old.events;
    return true;
  });
  Incident& inc = make(kind, node, e);
  inc.links = std::move(links);
  inc.down = links_down(inc);
  inc.cycles = 1;
  inc.events = 1 + folded;
  inc.down_since_us = inc.down == static_cast<int>(inc.links.size()) ? e.time_us : 0;
  out.push_back(feed_event(inc, e));
  return true;
}

Incident& IncidentTracker::make(const std::string& kind, uint64_t node, const ingest::Event& e) {
  Incident inc;
  inc.id = fabric::format_guid(node) + "-" + std::to_string(e.time_us / 1'000'000);
  inc.kind = kind;
  inc.node_guid = node;
  inc.first_us = inc.last_us = e.time_us;
  ++opened_[kind];
  incidents_.push_back(std::move(inc));
  return incidents_.back();
}

void IncidentTracker::prune(int64_t now_us) {
  std::erase_if(up_at_, [&](const auto& u) { return u.second < now_us - opt_.burst_us; });
  std::erase_if(incidents_, [&](const Incident& inc) {
    return state_of(inc, now_us) == "resolved" && inc.last_us < now_us - kKeepUs;
  });
  while (incidents_.size() > kMaxIncidents) {
    auto it = std::find_if(incidents_.begin(), incidents_.end(),
                           [&](const Incident& i) { return state_of(i, now_us) == "resolved"; });
    if (it == incidents_.end()) it = incidents_.begin();
    incidents_.erase(it);
    ++dropped_;
  }
}

}  // namespace ibw::rules

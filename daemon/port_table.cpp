#include "daemon/port_table.h"

#include <algorithm>
#include <array>

#include "fabric/prefetch.h"

#include "ingest/link_events.h"

namespace ibw::daemon {
namespace port_table_detail {

ingest::LinkEnd link_end(const store::PortRecord& r) {
  return {r.node_guid, r.port, r.lid, r.node, r.cable_id};
}

}  // namespace port_table_detail

void PortTable::seed(std::vector<store::PortRecord> records) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& r : records) ports_[key(r.node_guid, r.port)] = std::move(r);
}

std::optional<store::PortRecord> PortTable::get(uint64_t guid, int port) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const store::PortRecord* r = ports_.find(key(guid, port));
  if (!r) return std::nullopt;
  return *r;
}

std::string PortTable::node_name(uint64_t guid) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int port = 0; port < 256; ++port)  // (orders and decisions only: a few lookups each)
    if (const store::PortRecord* r = ports_.find(key(guid, port)); r && !r->node.empty())
      return r->node;
  return {};
}

size_t PortTable::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ports_.size();
}

std::vector<store::PortRecord> PortTable::apply_topology(const Topology& topo, int64_t now_us,
                                                         std::vector<ingest::Event>* events) {
  using port_table_detail::link_end;
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<store::PortRecord> changed;
  std::unordered_map<uint64_t, bool> seen;
  const fabric::Fabric& fab = topo.fabric;
  for (uint32_t i = 0; i < fab.size(); ++i) {
    const fabric::Node& n = fab.node(i);
    const fabric::Port* p0 = n.port(0);
    for (const fabric::Port& p : n.ports) {
      if (p.number == 0 || !p.present) continue;
      uint64_t k = key(n.guid, p.number);
      seen[k] = true;
      auto [rec, fresh] = ports_.try_emplace(k);
      store::PortRecord& r = *rec;
      store::PortRecord before = r;
      r.node_guid = n.guid;
      r.port = p.number;
      r.node = n.name;
      r.lid = n.type == fabric::NodeType::sw && p0 ? p0->lid : p.lid;
      r.state = p.state ? p.state : (p.has_peer() ? 4 : 1);
      r.phys_state = p.phys_state ? p.phys_state : (p.has_peer() ? 5 : 0);
      r.width = p.width_active;
      r.speed = p.speed_active == fabric::Speed::unknown
                    ? ""
                    : std::string(fabric::speed_name(p.speed_active));
      r.cable_id = topo.correlator->cable_at(n.guid, p.number);
      uint64_t peer_guid = 0;
      int peer_port = 0;
      std::string peer_node;
      if (p.has_peer()) {
        peer_guid = fab.node(p.peer_node).guid;
        peer_port = p.peer_port;
        peer_node = fab.node(p.peer_node).name;
      }
      if (auto chk = checked_.find(k); !fresh && chk != checked_.end() && chk->second > now_us) {
        peer_guid = before.peer_guid;  // the link check's reading is newer than this discovery
        peer_port = before.peer_port;
        peer_node = before.peer_node;
        r.state = before.state;
        r.phys_state = before.phys_state;
      }
      bool peer_changed = before.peer_guid != peer_guid || before.peer_port != peer_port;
      if (peer_changed && before.peer_guid)
        lost_[k] = {before.peer_guid, before.peer_port, before.peer_node};
      if (!fresh)
        ingest::append_link_changes(link_end(r),
                                    {before.peer_guid, before.peer_port, before.peer_node},
                                    {peer_guid, peer_port, peer_node}, now_us, events);
      r.peer_guid = peer_guid;
      r.peer_port = peer_port;
      r.peer_node = peer_node;
      if (fresh || peer_changed || before.state != r.state || before.phys_state != r.phys_state)
        r.last_change_us = now_us;
      if (fresh || peer_changed || before.state != r.state || before.phys_state != r.phys_state ||
          before.width != r.width || before.speed != r.speed || before.node != r.node ||
          before.lid != r.lid || before.cable_id != r.cable_id || before.peer_node != r.peer_node)
        changed.push_back(r);
    }
  }
  // Ports that vanished with their node (e.g. a host whose only link went down).
  ports_.for_each([&](uint64_t k, store::PortRecord& r) {
    if (seen.count(k) || !r.peer_guid) return;
    if (auto chk = checked_.find(k); chk != checked_.end() && chk->second > now_us) return;
    drop_link(r, now_us, events);
    r.phys_state = 0;
    changed.push_back(r);
  });
  return changed;
}

void PortTable::drop_link(store::PortRecord& r, int64_t now_us,
                          std::vector<ingest::Event>* events) {
  events->push_back(ingest::link_event(ingest::kind::link_down, port_table_detail::link_end(r),
                                       {r.peer_guid, r.peer_port, r.peer_node}, now_us));
  lost_[key(r.node_guid, r.port)] = {r.peer_guid, r.peer_port, r.peer_node};
  r.peer_guid = 0;
  r.peer_port = 0;
  r.peer_node.clear();
  r.state = 1;
  r.last_change_us = now_us;
}

bool PortTable::restore_link(store::PortRecord& r, const LinkStateReading& x, int64_t now_us,
                             std::vector<ingest::Event>* events,
                             std::vector<store::PortRecord>* changed) {
  auto lost = lost_.find(key(r.node_guid, r.port));
  if (lost == lost_.end()) return false;
  uint64_t far_key = key(lost->second.guid, lost->second.port);
  store::PortRecord* far = ports_.find(far_key);
  auto far_lost = lost_.find(far_key);
  if (!far || far->peer_guid || far_lost == lost_.end() || far_lost->second.guid != r.node_guid ||
      far_lost->second.port != r.port)
    return false;
  store::PortRecord& f = *far;
  for (store::PortRecord* end : {&r, &f}) {
    const store::PortRecord& other = end == &r ? f : r;
    end->peer_guid = other.node_guid;
    end->peer_port = other.port;
    end->peer_node = other.node;
    end->state = x.state;
    end->phys_state = x.phys_state;
    end->last_change_us = now_us;
    events->push_back(ingest::link_event(ingest::kind::link_up, port_table_detail::link_end(*end),
                                         {other.node_guid, other.port, other.node}, now_us));
    checked_[key(end->node_guid, end->port)] = now_us;
    changed->push_back(*end);
  }
  return true;
}

std::vector<store::PortRecord> PortTable::apply_link_states(
    const std::vector<LinkStateReading>& readings, int64_t now_us,
    std::vector<ingest::Event>* events) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<store::PortRecord> changed;
  for (const LinkStateReading& x : readings) {
    store::PortRecord* rec = ports_.find(key(x.node_guid, x.port));
    if (!rec) continue;
    store::PortRecord& r = *rec;
    checked_[key(r.node_guid, r.port)] = now_us;
    bool up = x.state >= 2;
    if (!up && r.peer_guid) {  // went down: both ends of the cable
      store::PortRecord* far = ports_.find(key(r.peer_guid, r.peer_port));
      drop_link(r, now_us, events);
      r.phys_state = x.phys_state;
      changed.push_back(r);
      if (!far || far->peer_guid != r.node_guid || far->peer_port != r.port) continue;
      checked_[key(far->node_guid, far->port)] = now_us;
      drop_link(*far, now_us, events);
      changed.push_back(*far);
      continue;
    }
    if (up && !r.peer_guid && restore_link(r, x, now_us, events, &changed)) continue;
    if (r.state != x.state || r.phys_state != x.phys_state) {  // no link change
      r.state = x.state;
      r.phys_state = x.phys_state;
      changed.push_back(r);
    }
  }
  return changed;
}

size_t PortTable::apply_counters(const std::vector<ingest::CounterDelta>& deltas) {
  std::lock_guard<std::mutex> lock(mutex_);
  // A scrape lists the ports in its own order, the table holds them in the topology's: each
  // lookup and each record written would be a wait on memory. So, as a pipeline: the index
  // slot of the reading kAhead on is asked for, the record of the one kNear on is found and
  // its counter part asked for, and this one is written.
  constexpr size_t kAhead = 16, kNear = 8;
  const size_t n = deltas.size();
  auto key_at = [&](size_t i) { return key(deltas[i].sample.node_guid, deltas[i].sample.port); };
  std::array<store::PortRecord*, kNear> found{};
  auto look = [&](size_t i) {
    if (i + kAhead - kNear < n) ports_.prefetch(key_at(i + kAhead - kNear));
    store::PortRecord* r = ports_.find(key_at(i));
    found[i % kNear] = r;
    if (!r) return;
    const char* from = reinterpret_cast<const char*>(&r->counters);
    const char* to = reinterpret_cast<const char*>(&r->deltas_at_least + 1);
    fabric::prefetch_range_write(from, static_cast<size_t>(to - from));
  };
  for (size_t i = 0; i < std::min(n, kNear); ++i) look(i);
  size_t applied = 0;
  for (size_t i = 0; i < n; ++i) {
    store::PortRecord* r = found[i % kNear];
    if (i + kNear < n) look(i + kNear);  // (after reading this one's slot: it is reused)
    if (!r) continue;
    store::set_counters(*r, deltas[i]);
    ++applied;
  }
  return applied;
}

}  // namespace ibw::daemon

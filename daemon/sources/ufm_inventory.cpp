// Polls of UFM's alarms, ports and links; see ufm_inventory.h.
#include "daemon/sources/ufm_inventory.h"

#include <utility>

#include "daemon/sources/ufm.h"

namespace ibw::daemon {
namespace ufm_inventory_detail {

std::string failure(const ingest::UfmResponse& r, const std::string& parse_error) {
  if (!r.error.empty()) return r.error;
  return parse_error.empty() ? "unusable answer" : parse_error;
}

// UFM names a port by the GUID in "<guid>_<num>"; the fabric may know the node by the system
// GUID instead (ufm-api.md §3.3 "<system-or-node guid>"). Keys the state as the fabric does.
void rekey(const Topology* topo, ingest::UfmPortState& s) {
  if (!topo || !s.system_guid || s.system_guid == s.node_guid) return;
  const ingest::Correlator& corr = *topo->correlator;
  if (corr.node_name(s.node_guid).empty() && !corr.node_name(s.system_guid).empty())
    s.node_guid = s.system_guid;
}

// The ports list as it is read: each record becomes its state and its index entry at once,
// so the list itself (about 1.3 KB a port with its strings) is never held whole.
struct PortsRead : ingest::UfmPortsSink {
  PortsRead(int64_t now, size_t expect) : now_us(now), expected(expect) {}
  void begin() override {
    states.clear();
    states.reserve(expected);  // as many as the last read: no regrowth of a 100 MB vector
    index = std::make_shared<ingest::UfmPortIndex>();
    listed = 0;
  }
  void take(std::vector<ingest::UfmPort>& ports) override {
    for (const ingest::UfmPort& p : ports) {
      index->add(p);
      if (auto s = ingest::ufm_port_state(p, now_us)) states.push_back(std::move(*s));
    }
    listed += ports.size();
  }
  int64_t now_us;
  size_t expected;
  std::vector<ingest::UfmPortState> states;
  std::shared_ptr<ingest::UfmPortIndex> index = std::make_shared<ingest::UfmPortIndex>();
  size_t listed = 0;  // records read (with a name)
};

}  // namespace ufm_inventory_detail

UfmInventory::UfmInventory(ingest::UfmClient& client, ingest::UfmTimeContext time,
                           const std::optional<std::string>& alarm_cursor,
                           const std::vector<ingest::UfmPortState>& stored_ports)
    : client_(client), time_(time), alarms_(alarm_cursor) {
  ports_.seed(stored_ports);
}

UfmInventoryResult UfmInventory::poll_ports(const Topology* topo, int64_t now_us) {
  namespace d = ufm_inventory_detail;
  UfmInventoryResult out;
  d::PortsRead read(now_us, ports_.size());
  auto ports = client_.ports(read);
  if (!ports.ok()) {
    out.error = "ports: " + d::failure(ports.response, ports.parsed.error);
    return out;
  }
  // UFM answering with no ports, or fewer than half of those it listed before, is taken for a
  // partial answer (a restart, a schema change skipping records), not for half the fabric
  // gone: applying it would remove every row and re-raise each port's high BER on the next
  // good read.
  size_t known = ports_.size();
  if (known > 0 && read.listed * 2 < known) {
    out.error = "ports: UFM listed " + std::to_string(read.listed) + " of " +
                std::to_string(known) + " known ports; not trusted, the last view is kept";
    return out;
  }
  out.ok = true;
  out.listed = read.listed;
  auto links = client_.links();
  if (links.ok()) {
    links_ = std::move(links.parsed.items);
    have_links_ = true;
    out.links = links_.size();
  } else {  // the last links read, if any, still gives peers (no churn of every row)
    out.error = "links: " + d::failure(links.response, links.parsed.error);
  }
  std::vector<ingest::UfmPortState> states = std::move(read.states);
  if (have_links_) ingest::apply_ufm_links(states, links_);
  for (auto& s : states) d::rekey(topo, s);
  read.index->seal();
  index_ = std::move(read.index);
  ingest::UfmPortChanges changes = ports_.update(std::move(states), now_us);
  out.changed = changes.upsert.size();
  out.removed = changes.removed.size();
  name_ufm_events(topo, changes.events);
  fill_peers(topo, changes.events);
  out.batch.events = std::move(changes.events);
  out.batch.ufm_ports = std::move(changes.upsert);
  out.batch.ufm_ports_removed = std::move(changes.removed);
  return out;
}

UfmInventoryResult UfmInventory::poll_alarms(const Topology* topo, int64_t now_us) {
  namespace d = ufm_inventory_detail;
  UfmInventoryResult out;
  auto alarms = client_.alarms(time_);
  if (!alarms.ok()) {
    out.error = "alarms: " + d::failure(alarms.response, alarms.parsed.error);
    return out;
  }
  out.ok = true;
  out.listed = alarms.parsed.items.size();
  ingest::UfmAlarmUpdate u = alarms_.update(alarms.parsed.items);
  out.changed = u.raised.size();
  out.removed = u.cleared.size();
  if (!u.changed) return out;
  std::vector<ingest::Event>& events = out.batch.events;
  for (ingest::UfmAlarm& a : u.raised) {
    if (index_) index_->resolve(a.object);  // a label such as "1/17/1" -> port number
    events.push_back(ingest::ufm_alarm_event(a, now_us));
  }
  for (const ingest::UfmOpenAlarm& a : u.cleared)
    events.push_back(ingest::ufm_alarm_cleared_event(a, now_us));
  name_ufm_events(topo, events);
  fill_peers(topo, events);
  out.batch.cursors.emplace_back("ufm_alarms", alarms_.cursor());
  return out;
}

void UfmInventory::fill_peers(const Topology* topo, std::vector<ingest::Event>& events) const {
  for (ingest::Event& e : events) {
    if (!e.node_guid || !e.port || e.peer_guid || !e.peer_node.empty()) continue;
    const ingest::UfmPortState* s = ports_.find(e.node_guid, e.port);
    if (!s || !s->peer_guid) continue;
    e.peer_guid = s->peer_guid;
    e.peer_port = s->peer_port;
    if (topo) e.peer_node = topo->correlator->node_name(s->peer_guid);
    if (e.peer_node.empty()) e.peer_node = s->peer_node;
    if (topo && e.cable_id.empty()) e.cable_id = topo->correlator->cable_at(e.node_guid, e.port);
  }
}

}  // namespace ibw::daemon

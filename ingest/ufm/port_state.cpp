// UFM's view of ports and its changes; see ufm_port_state.h.
#include "ingest/ufm/port_state.h"

#include <algorithm>
#include <map>

#include "ingest/ufm/events.h"

namespace ibw::ingest {
namespace ufm_port_state_detail {

std::pair<uint64_t, int> key(uint64_t guid, int port) {
  return {guid, port};  // exact: guid * 256 + port would merge GUIDs that differ in the top byte
}

std::string guid_text(uint64_t guid) {
  static const char* kHex = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, guid >>= 4) s[static_cast<size_t>(i)] = kHex[guid & 0xf];
  return s;
}

std::string where(const UfmPortState& s) {
  std::string node = s.system_name.empty() ? s.name : s.system_name;
  return node + "/" + (s.dname.empty() ? std::to_string(s.port) : s.dname);
}

}  // namespace ufm_port_state_detail

bool UfmPortState::same_view(const UfmPortState& o) const {
  return node_guid == o.node_guid && port == o.port && name == o.name &&
         system_guid == o.system_guid && system_name == o.system_name && dname == o.dname &&
         logical_state == o.logical_state && physical_state == o.physical_state &&
         speed == o.speed && width == o.width && high_ber_severity == o.high_ber_severity &&
         severity == o.severity && peer_guid == o.peer_guid && peer_port == o.peer_port &&
         peer_node == o.peer_node && peer_from == o.peer_from;
}

std::optional<UfmPortState> ufm_port_state(const UfmPort& p, int64_t now_us) {
  uint64_t guid = p.node_guid ? p.node_guid : p.system_guid;
  if (!guid || p.number <= 0 || p.number > 255) return std::nullopt;
  UfmPortState s;
  s.node_guid = guid;
  s.port = p.number;
  s.name = p.name;
  s.system_guid = p.system_guid;
  s.system_name = p.system_name;
  s.dname = p.dname;
  s.logical_state = p.logical_state;
  s.physical_state = p.physical_state;
  s.speed = p.active_speed;
  s.width = p.active_width;
  s.high_ber_severity = p.high_ber_severity;
  s.severity = p.severity;
  if (p.peer_guid && p.peer_number) {
    s.peer_guid = p.peer_guid;
    s.peer_port = p.peer_number;
    s.peer_node = p.peer_node_name.empty() ? p.peer_node_description : p.peer_node_name;
    s.peer_from = "ports";
  }
  s.since_us = now_us;
  return s;
}

std::vector<UfmPortState> ufm_port_states(const std::vector<UfmPort>& ports,
                                          const std::vector<UfmLink>* links, int64_t now_us) {
  std::vector<UfmPortState> out;
  out.reserve(ports.size());
  for (const UfmPort& p : ports)
    if (auto s = ufm_port_state(p, now_us)) out.push_back(std::move(*s));
  if (links) apply_ufm_links(out, *links);
  return out;
}

void apply_ufm_links(std::vector<UfmPortState>& out, const std::vector<UfmLink>& links) {
  // Node and system GUID, number -> index in out, as one sorted vector (16 bytes an entry; a
  // std::map of the same took about 60 MB on a 393k-port fabric, at the inventory read that
  // is the daemon's memory peak). A key given twice finds its first entry, as before.
  struct At {
    uint64_t guid;
    int32_t port;
    uint32_t index;
  };
  std::vector<At> at;
  at.reserve(out.size() * 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const UfmPortState& s = out[i];
    auto index = static_cast<uint32_t>(i);
    at.push_back({s.node_guid, s.port, index});
    if (s.system_guid && s.system_guid != s.node_guid) at.push_back({s.system_guid, s.port, index});
  }
  auto before = [](const At& a, const At& b) {
    return a.guid != b.guid ? a.guid < b.guid : a.port < b.port;
  };
  std::stable_sort(at.begin(), at.end(), before);
  auto find = [&](const UfmLinkEnd& e) -> UfmPortState* {
    At want{e.guid, e.port, 0};
    auto it = std::lower_bound(at.begin(), at.end(), want, before);
    return it == at.end() || it->guid != e.guid || it->port != e.port ? nullptr : &out[it->index];
  };
  auto set_peer = [&](UfmPortState* s, const UfmLinkEnd& peer) {
    if (!s || !peer.guid || !peer.port) return;
    const UfmPortState* other = find(peer);
    s->peer_guid = other ? other->node_guid : peer.guid;
    s->peer_port = peer.port;
    s->peer_node =
        other && !other->system_name.empty() ? other->system_name : peer.node_description;
    s->peer_from = "links";
  };
  for (const UfmLink& l : links) {
    set_peer(find(l.source), l.destination);
    set_peer(find(l.destination), l.source);
  }
}

Event ufm_high_ber_event(const UfmPortState& s, const std::string& before, int64_t now_us) {
  namespace d = ufm_port_state_detail;
  Event e;
  e.time_us = now_us;
  e.source = EventSource::ufm;
  e.node_guid = s.node_guid;
  e.port = s.port;
  e.node = s.system_name;
  const std::string was = before.empty() ? "none" : before;
  if (s.high_ber_severity.empty()) {
    e.kind = std::string(ufm_kind::high_ber_cleared);
    e.severity = Severity::info;
    e.message = "UFM port " + d::where(s) + " high_ber_severity cleared (was " + was + ")";
  } else {
    e.kind = std::string(ufm_kind::high_ber);
    e.severity = std::max(ufm_severity(s.high_ber_severity), Severity::warning);
    e.message = "UFM port " + d::where(s) + " high_ber_severity " + s.high_ber_severity + " (was " +
                was + ")";
  }
  std::string name =
      s.name.empty() ? d::guid_text(s.node_guid) + "_" + std::to_string(s.port) : s.name;
  e.dedup_key = "ufm_port:" + name +
                ":high_ber:" + (s.high_ber_severity.empty() ? "none" : s.high_ber_severity) + ":" +
                std::to_string(now_us);
  return e;
}

void UfmPortStates::seed(const std::vector<UfmPortState>& stored) {
  ports_.clear();
  for (const auto& s : stored) ports_[{s.node_guid, s.port}] = Known{s, poll_};
}

UfmPortChanges UfmPortStates::update(std::vector<UfmPortState> current, int64_t now_us) {
  // In place: each listed port marks its entry with this poll's number, and the entries left
  // unmarked are the removed ones. Building a second map and swapping it in held two copies
  // of the view at once (plus the listed one): 168 MB more at the inventory read of a
  // 393k-port fabric, the daemon's peak.
  UfmPortChanges out;
  const uint32_t poll = ++poll_;
  for (auto& s : current) {
    std::pair<uint64_t, int> k{s.node_guid, s.port};
    auto it = ports_.find(k);
    if (it != ports_.end() && it->second.poll == poll) continue;  // listed twice: the first
    if (it != ports_.end() && it->second.state.same_view(s)) {
      ++out.unchanged;
      it->second.poll = poll;
      s = UfmPortState{};  // the listed copy freed at once
      continue;
    }
    const bool known = it != ports_.end();
    const std::string before = known ? it->second.state.high_ber_severity : std::string();
    if (s.high_ber_severity != before) out.events.push_back(ufm_high_ber_event(s, before, now_us));
    s.since_us = now_us;
    out.upsert.push_back(s);
    if (known)
      it->second = Known{std::move(s), poll};
    else
      ports_.emplace(k, Known{std::move(s), poll});
  }
  std::erase_if(ports_, [&](const auto& e) {
    if (e.second.poll == poll) return false;
    out.removed.push_back(e.first);
    return true;
  });
  return out;
}

const UfmPortState* UfmPortStates::find(uint64_t guid, int port) const {
  auto it = ports_.find({guid, port});
  return it == ports_.end() ? nullptr : &it->second.state;
}

}  // namespace ibw::ingest

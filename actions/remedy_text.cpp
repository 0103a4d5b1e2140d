#include "actions/remedy_text.h"

#include <cinttypes>
#include <cstdio>

#include "store/record_json.h"  // iso_time

namespace ibw::actions::remedy_text {

namespace rt_detail {

uint16_t lid_of(const fabric::Fabric& f, uint32_t node, int port) {
  const fabric::Node& n = f.node(node);
  if (n.type == fabric::NodeType::sw) {
    if (const fabric::Port* p0 = n.port(0); p0 && p0->lid) return p0->lid;
  }
  if (const fabric::Port* p = n.port(port); p && p->lid) return p->lid;
  for (const auto& p : n.ports)
    if (p.lid) return p.lid;
  return 0;
}

void fill_end(const RemedyContext& ctx, core::LinkEnd& e) {
  if (ctx.correlator) e.node = ctx.correlator->node_name(e.guid);
  if (e.node.empty() && ctx.fabric) {
    uint32_t at = ctx.fabric->find_guid(e.guid);
    if (at != fabric::kNoNode) e.node = ctx.fabric->node(at).name;
  }
  if (e.node.empty()) e.node = fabric::format_guid(e.guid);
}

}  // namespace rt_detail

std::string end_text(const core::LinkEnd& e) {
  if (e.guid == 0 && e.node.empty()) return "";
  return (e.node.empty() ? fabric::format_guid(e.guid) : e.node) + "/" + std::to_string(e.port);
}

PortAddress node_address(const RemedyContext& ctx, uint64_t guid, int port,
                         const std::set<PortKey>& avoid) {
  PortAddress a;
  if (!ctx.fabric) return a;
  const fabric::Fabric& f = *ctx.fabric;
  uint32_t target = f.find_guid(guid);
  if (target == fabric::kNoNode) return a;
  a.lid = rt_detail::lid_of(f, target, port);
  uint32_t start = ctx.local_port.guid ? f.find_guid(ctx.local_port.guid) : fabric::kNoNode;
  if (start == fabric::kNoNode) return a;
  if (start == target) return a.dr_path = "0", a;
  // Breadth first from the local node; only switches are passed through, and never the link
  // being acted on (a Set that disables the link it travelled over gets no answer back).
  auto usable = [&](uint32_t n, const fabric::Port& p) {
    if (n == target && p.number == port) return false;
    if (p.has_peer() && p.peer_node == target && p.peer_port == port) return false;
    if (!p.has_peer() || p.phys_state == fabric::kPhysDisabled || p.state == 1) return false;
    if (avoid.count(PortKey{f.node(n).guid, p.number})) return false;
    const fabric::Port* far = f.node(p.peer_node).port(p.peer_port);
    if (far && (far->phys_state == fabric::kPhysDisabled || far->state == 1)) return false;
    return !avoid.count(PortKey{f.node(p.peer_node).guid, p.peer_port});
  };
  std::vector<std::pair<uint32_t, int>> from(f.size(), {fabric::kNoNode, 0});
  std::vector<char> seen(f.size(), 0);
  std::vector<uint32_t> queue{start};
  seen[start] = 1;
  for (size_t head = 0; head < queue.size() && !seen[target]; ++head) {
    uint32_t at = queue[head];
    const fabric::Node& n = f.node(at);
    if (at != start && n.type != fabric::NodeType::sw) continue;
    for (const auto& p : n.ports) {
      if (p.number == 0 || (at == start && p.number != ctx.local_port.port)) continue;
      if (!usable(at, p) || seen[p.peer_node]) continue;
      seen[p.peer_node] = 1;
      from[p.peer_node] = {at, p.number};
      queue.push_back(p.peer_node);
    }
  }
  if (!seen[target]) return a;
  std::vector<int> hops;
  for (uint32_t at = target; at != start; at = from[at].first) hops.push_back(from[at].second);
  a.dr_path = "0";
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) a.dr_path += "," + std::to_string(*it);
  return a;
}

std::optional<std::pair<PortKey, PortKey>> parse_link_key(const std::string& key) {
  unsigned long long ga = 0, gb = 0;
  int pa = 0, pb = 0;
  if (std::sscanf(key.c_str(), "0x%llx/%d~0x%llx/%d", &ga, &pa, &gb, &pb) == 4)
    return std::pair{PortKey{ga, pa}, PortKey{gb, pb}};
  if (std::sscanf(key.c_str(), "0x%llx/%d", &ga, &pa) == 2)
    return std::pair{PortKey{ga, pa}, PortKey{}};
  return std::nullopt;
}

LinkView link_view(const RemedyContext& ctx, uint64_t guid, int port) {
  LinkView v;
  v.a.guid = guid, v.a.port = port;
  v.target = {guid, port};
  const fabric::Fabric* f = ctx.fabric;
  uint32_t node = f ? f->find_guid(guid) : fabric::kNoNode;
  if (node != fabric::kNoNode) {
    const fabric::Port* p = f->node(node).port(port);
    if (p && p->has_peer()) {
      const fabric::Node& peer = f->node(p->peer_node);
      v.b.guid = peer.guid, v.b.port = p->peer_port;
      if (f->node(node).type != fabric::NodeType::sw && peer.type == fabric::NodeType::sw)
        v.target = {peer.guid, p->peer_port};
    }
  }
  v.address = node_address(ctx, v.target.guid, v.target.port);
  rt_detail::fill_end(ctx, v.a);
  if (v.b.guid) rt_detail::fill_end(ctx, v.b);
  if (ctx.correlator) {
    v.cable_id = ctx.correlator->cable_at(guid, port);
    if (v.cable_id.empty() && v.b.guid) v.cable_id = ctx.correlator->cable_at(v.b.guid, v.b.port);
  }
  if (const fabric::PlannedLink* pl = ctx.plan ? ctx.plan->find(v.cable_id) : nullptr) {
    bool a_first = pl->a.node == v.a.node || pl->a.node == fabric::format_guid(v.a.guid);
    v.a.location = a_first ? pl->a.location : pl->b.location;
    v.b.location = a_first ? pl->b.location : pl->a.location;
    if (!v.b.guid && v.b.node.empty()) {  // peer not discovered: name it from the plan
      v.b.node = a_first ? pl->b.node : pl->a.node;
      v.b.port = a_first ? pl->b.port : pl->a.port;
    }
  }
  v.link_key = v.b.guid ? core::link_key(v.a.guid, v.a.port, v.b.guid, v.b.port)
                        : core::link_key(v.a.guid, v.a.port, 0, 0);
  return v;
}

bool order_active(const std::string& status) {
  return status == "open" || status == "in_progress" || status == "reopened";
}

core::WorkOrder next_order(const std::optional<core::WorkOrder>& old, const LinkView& l,
                           int64_t now) {
  core::WorkOrder o;
  if (old) {
    o = *old;
    if (!order_active(o.status)) {
      o.status = "reopened";
      o.offences += 1;
      o.resolved_us = 0;
      o.needs_human = false;
      o.assignee.clear();
    }
  } else {
    o.link_key = l.link_key;
    o.a = l.a, o.b = l.b;
    o.status = "open";
    o.offences = 1;
    o.opened_us = now;
  }
  if (o.cable_id.empty()) o.cable_id = l.cable_id;
  o.updated_us = now;
  return o;
}

core::WorkOrder disabled_order(const std::optional<core::WorkOrder>& old, const LinkView& link,
                               int64_t now_us, const std::string& rule, const std::string& summary,
                               const std::string& evidence_json) {
  core::WorkOrder o = next_order(old, link, now_us);
  if (o.rule.empty()) o.rule = rule;
  o.port_disabled = true;
  o.summary = summary;
  o.advice = advice(rules::RuleType::symbol_errors, o.offences, link);
  if (o.evidence_json.empty()) o.evidence_json = evidence_json;
  return o;
}

core::WorkOrder rebase_order(core::WorkOrder order, const std::optional<core::WorkOrder>& before,
                             const std::optional<core::WorkOrder>& fresh) {
  if (!fresh) {
    order.id = 0, order.version = 0;
    return order;
  }
  order.id = fresh->id;
  order.version = fresh->version;
  order.opened_us = fresh->opened_us;
  if (!before || fresh->assignee != before->assignee) order.assignee = fresh->assignee;
  if (!before || fresh->note != before->note) order.note = fresh->note;
  return order;
}

std::set<PortKey> ports_to_avoid(const GuardState& state) {
  std::set<PortKey> avoid = state.disabled;
  for (const auto& [port, far] : state.peer_of) avoid.insert(far);
  return avoid;
}

nlohmann::json reading_json(const PortReading& r) {
  return {{"state", std::string(fabric::port_state_name(r.link_state))},
          {"phys_state", std::string(fabric::phys_state_name(r.phys_state))}};
}

nlohmann::json evidence_json(const Finding& f) {
  const rules::Verdict& v = f.verdict;
  const rules::Evidence& e = v.evidence;
  nlohmann::json j = {{"explanation", v.explanation},
                      {"rule_type", std::string(rules::rule_type_name(v.type))},
                      {"severity", std::string(ingest::severity_name(v.severity))},
                      {"confirmed", v.confirmed},
                      {"window_s", static_cast<double>(e.window_us) / 1e6}};
  if (!e.counter.empty()) {
    j["counter"] = e.counter;
    j["total"] = e.total;
    j["max_delta"] = e.max_delta;
    j["max_rate_per_s"] = e.max_rate;
    j["samples"] = e.samples;
    j["at_least"] = e.at_least;
  }
  if (e.ber > 0) j["ber"] = e.ber;
  if (e.threshold > 0) j["threshold"] = e.threshold;
  if (e.flaps > 0 || v.type == rules::RuleType::link_flap) j["flaps"] = e.flaps;
  if (!e.event_times.empty()) {
    auto& times = j["link_down_times"] = nlohmann::json::array();
    for (int64_t t : e.event_times) times.push_back(store::iso_time(t));
  }
  if (!e.ber_events.empty()) {  // ufm_high_ber: UFM's verdicts that fired
    auto& events = j["ufm_events"] = nlohmann::json::array();
    for (const auto& b : e.ber_events)
      events.push_back({{"time", store::iso_time(b.time_us)},
                        {"source", std::string(ingest::source_name(b.source))},
                        {"severity", std::string(ingest::severity_name(b.severity))},
                        {"message", b.message}});
  }
  if (e.path) {  // cursed_path: the localizer's case and the guided probes' confirmation
    const rules::PathEvidence& p = *e.path;
    nlohmann::json c = {{"link", p.link},
                        {"score", p.score},
                        {"loss", p.loss},
                        {"bad_observations", p.bad_observations},
                        {"good_observations", p.good_observations},
                        {"group_size", p.group_size},
                        {"sample_bad_pairs", p.sample_bad_pairs}};
    if (p.dr_sent)
      c["dr_confirmation"] = {
          {"sent", p.dr_sent},
          {"lost", p.dr_lost},
          {"loss", static_cast<double>(p.dr_lost) / static_cast<double>(p.dr_sent)}};
    if (p.counters_known)
      c["counter_deltas"] = {{"PortRcvErrors", p.rcv_errors_delta},
                             {"SymbolErrorCounter", p.symbol_errors_delta}};
    j["cursed_path"] = std::move(c);
  }
  if (e.last_time_us) j["last_seen"] = store::iso_time(e.last_time_us);
  if (e.active_width || e.active_speed != fabric::Speed::unknown)
    j["active_rate"] = fabric::rate_name(e.active_width, e.active_speed);
  if (e.expected_width || e.expected_speed != fabric::Speed::unknown)
    j["expected_rate"] = fabric::rate_name(e.expected_width, e.expected_speed);
  if (f.counters.valid) {
    nlohmann::json c = {{"time", store::iso_time(f.counters.time_us)}};
    for (size_t i = 0; i < ingest::kCounterCount; ++i) {
      auto counter = static_cast<ingest::Counter>(i);
      if (f.counters.has(counter) && ingest::is_error_counter(counter) && f.counters.value[i])
        c[std::string(ingest::counter_name(counter))] = f.counters.value[i];
    }
    j["counters"] = std::move(c);
  }
  return j;
}

std::string advice(rules::RuleType type, int offences, const LinkView& link) {
  std::string cable = link.cable_id.empty() ? "the cable" : "cable " + link.cable_id;
  std::string where = end_text(link.a);
  if (!link.a.location.empty()) where += " (" + link.a.location + ")";
  std::string b = end_text(link.b);
  if (!b.empty())
    where += " and " + b + (link.b.location.empty() ? "" : " (" + link.b.location + ")");
  if (offences >= 3)
    return "repeat offender (" + std::to_string(offences) + " offences): replace " + cable +
           " and both transceivers, and inspect the ports at " + where +
           "; automation no longer disables this link";
  if (offences == 2)
    return "second offence after a repair: replace the transceivers (or " + cable + ") at " +
           where + "; cleaning and reseating did not hold";
  if (type == rules::RuleType::cursed_path)
    return "probes through " + cable + " at " + where +
           " were lost or slow while nothing flapped: clean both connector ends and reseat " +
           cable +
           ", check the switch firmware level, then re-enable the link (ibwarden "
           "enable) and watch the next probe rounds";
  if (type == rules::RuleType::link_degraded)
    return "reseat " + cable + " at " + where +
           "; if it still trains below its rate, replace the cable or its transceivers";
  return "clean both connector ends and reseat " + cable + " at " + where +
         ", then re-enable the link (ibwarden enable)";
}

}  // namespace ibw::actions::remedy_text

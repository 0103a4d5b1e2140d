// GET /health, /fabric and /metrics (web/api.h): the sources, store, leader and counts.
#include <algorithm>
#include <map>
#include <set>

#include "fabric/model.h"
#include "store/record_json.h"
#include "store/remedy_json.h"
#include "web/api_core.h"
#include "web/metrics.h"

namespace ibw::web {
namespace api_health_detail {

using nlohmann::ordered_json;

constexpr uint8_t kActive = 4;
constexpr uint8_t kPhysDisabled = 3;

// Seconds since the oldest undelivered outbox item was queued: its payload is the order's JSON
// at that change, whose "updated" is the time of the change. 0 when it cannot be read.
double outbox_age_seconds(const core::OutboxItem& item, int64_t now_us) {
  auto j = nlohmann::json::parse(item.payload, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("updated") || !j["updated"].is_string()) return 0;
  auto t = parse_utc_time(j["updated"].get<std::string>());
  if (!t || *t >= now_us) return 0;
  return static_cast<double>(now_us - *t) / 1e6;
}

std::string worst(const std::string& a, const std::string& b) {
  auto rank = [](std::string_view s) { return s == "down" ? 2 : s == "degraded" ? 1 : 0; };
  return rank(b) > rank(a) ? b : a;
}

}  // namespace api_health_detail

std::string_view source_status_name(SourceStatus s) {
  switch (s) {
    case SourceStatus::ok:
      return "ok";
    case SourceStatus::degraded:
      return "degraded";
    case SourceStatus::down:
      return "down";
    case SourceStatus::disabled:
      break;
  }
  return "disabled";
}

nlohmann::ordered_json ApiCore::health_sources(const std::vector<SourceHealth>& sources,
                                               std::string* status) {
  using namespace api_health_detail;
  ordered_json out = ordered_json::object();
  for (const auto& s : sources) {
    if (s.status == SourceStatus::degraded) *status = worst(*status, "degraded");
    if (s.status == SourceStatus::down) *status = worst(*status, "down");
    out[s.name] = {{"status", source_status_name(s.status)},
                   {"detail", s.detail},
                   {"last_ok", store::iso_time(s.last_ok_us)}};
  }
  return out;
}

nlohmann::ordered_json ApiCore::health_store(Call& c, std::string* status,
                                             const store::CheckpointStats* own) {
  try {
    const int version = c.store(stores_).schema_version();
    if (own && own->failing) {  // the writes go on, each that fills the WAL slower
      *status = api_health_detail::worst(*status, "degraded");
      return {{"status", "degraded"},
              {"detail",
               "WAL checkpoints fail on their thread, so commits checkpoint in "
               "place (slower store writes): " +
                   own->last_error},
              {"schema_version", version}};
    }
    return {{"status", "ok"}, {"detail", ""}, {"schema_version", version}};
  } catch (const std::exception& e) {
    if (c.lease) c.lease->discard();
    *status = "down";
    return {{"status", "down"}, {"detail", e.what()}, {"schema_version", nullptr}};
  }
}

Response ApiCore::get_health(Call& c) {
  using namespace api_health_detail;
  if (c.other) return other_health(c);
  Health h = backend_.health();
  ordered_json j;
  std::string status = "ok";
  ordered_json sources = health_sources(h.sources, &status);
  ordered_json st = health_store(c, &status, &h.checkpoints);
  j["status"] = status;
  j["time"] = store::iso_time(c.now_us);
  j["started"] = store::iso_time(h.started_us);
  {  // the fabric and its leader (its lease holder; null without HA or when unreadable)
    std::string own = backend_.fabric();
    j["fabric"] = own;
    ordered_json leader = nullptr, expires = nullptr;
    try {
      for (const auto& f : backend_.fabrics())
        if (f.name == own && f.lease && !f.lease->holder.empty()) {
          leader = f.lease->holder;
          expires = store::iso_time(f.lease->expires_us);
        }
    } catch (const std::exception&) {  // the store's own line says why
    }
    j["leader"] = leader;
    j["lease_expires"] = expires;
    j["role"] = h.leader ? "leader" : "standby";
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    j["read_only"] = read_only_;
  }
  j["sources"] = sources;
  {  // enforce mode that acts on nothing must not look healthy
    const bool idle = h.enforce && h.rules_loaded <= 0;
    if (idle) j["status"] = status = worst(status, "degraded");
    j["rules"] = {
        {"status", idle ? "degraded" : "ok"},
        {"detail", idle ? "actions.mode is enforce but no rules are loaded: nothing "
                          "is acted on automatically"
                        : ""},
        {"loaded", h.rules_loaded < 0 ? ordered_json(nullptr) : ordered_json(h.rules_loaded)},
        {"mode", h.enforce ? "enforce" : "dry-run"}};
  }
  {  // without a master SM (or unable to tell) the leader's actions wait: not healthy
    const auto& sm = h.subnet_manager;
    bool watched = sm.is_object() && sm.value("watch", "") == "on" && h.leader;
    if (watched && sm.value("status", "") != "master")
      j["status"] = status = worst(status, "degraded");
    j["subnet_manager"] = sm.is_null() ? ordered_json(nullptr) : ordered_json(sm);
  }
  j["store"] = st;
  j["last_sweep"] = h.sweep_seconds < 0 ? ordered_json(nullptr)
                                        : ordered_json{{"time", store::iso_time(h.sweep_time_us)},
                                                       {"seconds", h.sweep_seconds}};
  return json_response(200, j);
}

FabricCounts count_fabric(const PortList& list) {
  FabricCounts n;
  std::set<uint64_t> nodes;
  std::set<std::string> links, down;
  for (const auto& p : list.ports) {
    nodes.insert(p.node_guid);
    std::string key =
        p.peer_guid ? core::link_key(p.node_guid, p.port, p.peer_guid, p.peer_port) : "";
    if (!key.empty()) links.insert(key);
    // A link is down when an end that should be up (planned, or with a known peer) is not
    // Active, unless ibwarden disabled it (either end); each link counts once.
    bool ours = list.disabled_entry(p.node_guid, p.port) != nullptr ||
                (p.peer_guid && list.disabled_entry(p.peer_guid, p.peer_port) != nullptr);
    if (p.state != api_health_detail::kActive && !ours && (!p.cable_id.empty() || !key.empty()))
      down.insert(p.cable_id.empty() ? key : "cable:" + p.cable_id);
    ++n.by_state[std::string(p.state ? fabric::port_state_name(p.state) : "?")];
  }
  n.down = static_cast<int64_t>(down.size());
  n.nodes = static_cast<int64_t>(nodes.size());
  n.links = static_cast<int64_t>(links.size());
  return n;
}

OrderCounts count_orders(store::RemedyStore& st) {
  OrderCounts n;
  store::WorkOrderQuery q;
  q.status = "active";
  q.limit = 0;
  for (const auto& o : st.workorders(q)) {
    ++n.total;
    n.needs_human += o.needs_human ? 1 : 0;
    ++n.by_severity[o.severity];
  }
  return n;
}

Response ApiCore::get_fabric(Call& c) {
  using namespace api_health_detail;
  auto list = port_list(c);
  const FabricCounts& counts = list->counts();
  ordered_json disabled = ordered_json::array();
  for (const auto& d : list->disabled) {
    std::string node;
    if (auto g = list->by_guid.find(d.node_guid); g != list->by_guid.end())
      for (uint32_t i : g->second)
        if (list->ports[i].port == d.port) node = list->ports[i].node;
    std::string reason;
    int64_t decision_id = d.decision_id;
    store::DecisionQuery q;
    if (d.decision_id > 0) {  // the decision that disabled it
      q.after_id = d.decision_id - 1;
      q.limit = 1;
    } else {  // older rows: the last executed disable of the link
      q.link_key = d.link_key;
      q.limit = 0;
    }
    if (d.decision_id > 0 || !d.link_key.empty())
      for (const auto& dec : c.store(stores_).decisions(q))
        if (dec.id == d.decision_id ||
            (d.decision_id == 0 && dec.action == "disable" && dec.status == "executed")) {
          reason = dec.reason;
          decision_id = dec.id;
        }
    disabled.push_back({{"node", node},
                        {"node_guid", fabric::format_guid(d.node_guid)},
                        {"port", d.port},
                        {"since", store::iso_time(d.time_us)},
                        {"link_key", d.link_key},
                        {"decision_id", decision_id},
                        {"reason", reason}});
  }
  OrderCounts orders = count_orders(c.store(stores_));
  ordered_json j;
  j["time"] = store::iso_time(c.now_us);
  j["nodes"] = counts.nodes;
  j["ports"] = list->ports.size();
  j["links"] = counts.links;
  j["down"] = counts.down;
  j["disabled"] = list->disabled.size();
  j["ports_by_state"] = counts.by_state;
  j["disabled_ports"] = std::move(disabled);
  j["open_orders"] = {{"total", orders.total},
                      {"needs_human", orders.needs_human},
                      {"by_severity", orders.by_severity}};
  return json_response(200, j);
}

Response ApiCore::get_metrics(Call& c) {
  MetricsSnapshot m;
  m.fabric = fabric_name(c);
  if (c.other) {  // another fabric: its holder's source health from the lease row
    if (c.other->lease) m.health.sources = lease_source_health(c.other->lease->sources);
    m.health.leader = false;
    m.live = false;
  } else {
    m.health = backend_.health();
    m.webhook = backend_.webhook_outbox();
  }
  try {  // every fabric's lease, and whether this instance holds it
    std::string own = backend_.fabric();
    bool own_leads = c.other ? backend_.health().leader : m.health.leader;
    bool own_listed = false;
    for (const auto& f : backend_.fabrics()) {
      MetricsSnapshot::FabricLease l{f.name, std::nullopt, 0, f.name == own && own_leads};
      if (f.lease) l.leader = f.lease->holder, l.expires_us = f.lease->expires_us;
      own_listed = own_listed || f.name == own;
      m.fabrics.push_back(std::move(l));
    }
    if (!own_listed) m.fabrics.push_back({own, std::nullopt, 0, own_leads});
  } catch (const std::exception&) {  // ibwarden_store_up says the store is unreadable
  }
  if (!c.other) {
    if (ProbeBackend* p = backend_.probes()) {  // cursed routes: absent when probing is off
      auto s = p->suspects();
      m.cursed_suspects = static_cast<int64_t>(s.value("suspects", nlohmann::json::array()).size());
      m.probe_observations = s.value("observations", int64_t{0});
    }
    auto congestion = backend_.congestion();  // a signal: its own families, never orders
    m.congestion_ports =
        static_cast<int64_t>(congestion.value("ports", nlohmann::json::array()).size());
    m.congestion_findings_total = congestion.value("findings_total", int64_t{0});
    m.rule_findings = congestion.value("reports", int64_t{0});
    m.rule_findings_total = congestion.value("reports_total", int64_t{0});
    auto routes = backend_.route_check();
    if (routes.value("checked", false)) {
      MetricsSnapshot::RouteCheck r;
      r.credit_loops = static_cast<int64_t>(routes["credit_loops"].size());
      r.unreachable_pairs = routes.value("unreachable_pairs", int64_t{0});
      r.checks_total = routes.value("checks_total", int64_t{0});
      r.balance_ratio = routes["balance"].value("ratio", 0.0);
      r.fallback = routes.value("fallback", false);
      m.route_check = r;
    }
  }
  try {
    auto list = port_list(c);
    const FabricCounts& counts = list->counts();
    OrderCounts orders = count_orders(c.store(stores_));
    m.ports_by_state = counts.by_state;
    m.links = counts.links;
    m.ports_down = counts.down;
    m.disabled_ports = static_cast<int64_t>(list->disabled.size());
    for (const auto& d : list->disabled) {
      MetricsSnapshot::DisabledPortSince s{"", d.node_guid, d.port, "", d.time_us};
      for (const auto& p : list->ports)
        if (p.node_guid == d.node_guid && p.port == d.port) s.node = p.node, s.cable = p.cable_id;
      m.disabled_since.push_back(std::move(s));
    }
    // The guard's hourly budget counts disables since an hour ago (actions/remedy.cpp).
    m.disables_last_hour =
        static_cast<int64_t>(c.store(stores_).disable_times(c.now_us - 3'600'000'000).size());
    for (const auto& d : c.store(stores_).pending_decisions()) {
      if (!core::is_port_action(d)) continue;  // a Slurm drain
      ++m.port_actions_pending;
      m.port_actions_oldest_age_seconds =
          std::max(m.port_actions_oldest_age_seconds,
                   std::max(0.0, static_cast<double>(c.now_us - d.time_us) / 1e6));
    }
    store::OutboxBacklog outbox = c.store(stores_).outbox_backlog();
    m.outbox_pending = outbox.pending;
    m.outbox_failing = outbox.failing;
    m.outbox_failed_attempts = outbox.failed_attempts;
    if (outbox.oldest)
      m.outbox_oldest_age_seconds = api_health_detail::outbox_age_seconds(*outbox.oldest, c.now_us);
    m.open_orders_by_severity = orders.by_severity;
    m.needs_human = orders.needs_human;
    // Events in the last minute, a page at a time so a storm does not load them all.
    store::EventQuery q;
    q.since_us = c.now_us - 60'000'000;
    q.limit = 5000;
    size_t counted = 0;
    while (counted < 100'000) {
      auto page = c.store(stores_).events(q);
      counted += page.size();
      if (page.size() < q.limit) break;
      q.after_id = page.back().id;
    }
    m.events_per_second = static_cast<double>(counted) / 60.0;
    m.store_up = true;
  } catch (const store::StoreError&) {
    if (c.lease) c.lease->discard();
    m.store_up = false;
  }
  Response r;
  r.content_type = "text/plain; version=0.0.4";
  r.body = render_metrics(m);
  if (!c.other) r.body += render_guard_metrics(guard_, m.fabric);  // about this daemon
  return r;
}

}  // namespace ibw::web

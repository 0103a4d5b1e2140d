// GET /health, /fabric, /ports, /ports/{node}/{port} (web/api.h).
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "fabric/model.h"
#include "fabric/text_util.h"
#include "store/record_json.h"
#include "store/remedy_json.h"
#include "web/api_core.h"
#include "web/compress.h"
#include "web/metrics.h"

namespace ibw::web {
namespace api_ports_detail {

using nlohmann::ordered_json;

constexpr uint8_t kActive = 4;
constexpr uint8_t kPhysDisabled = 3;

// "0x" and 1 to 16 hex digits (any case) -> GUID; 0 when not of that form.
uint64_t parse_guid(std::string_view s) {
  if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return 0;
  return fabric::text::to_int<uint64_t>(s.substr(2), 16).value_or(0);
}

bool node_matches(const store::PortRecord& p, const std::string& node, uint64_t guid) {
  return p.node == node || (guid != 0 && p.node_guid == guid);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Port state filter: down, init, armed, active (PortState) or disabled (PhysState Disabled,
// or disabled by ibwarden: a simulator may keep reporting such a port up), as a test of
// PortList::flags; throws 400 for an unknown state.
std::function<bool(uint8_t)> state_test(const std::string& state) {
  static const char* kNames[] = {"", "down", "init", "armed", "active"};
  if (state == "disabled")
    return [](uint8_t f) { return (f & (PortList::kPhysDisabled | PortList::kOurs)) != 0; };
  for (int i = 1; i <= 4; ++i)
    if (state == kNames[i]) return [i](uint8_t f) { return (f & PortList::kStateMask) == i; };
  throw ApiError(400, "state: must be down, init, armed, active or disabled");
}

// Seconds since the oldest undelivered outbox item was queued: its payload is the order's JSON
// at that change, whose "updated" is the time of the change. 0 when it cannot be read.
double outbox_age_seconds(const core::OutboxItem& item, int64_t now_us) {
  auto j = nlohmann::json::parse(item.payload, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("updated") || !j["updated"].is_string()) return 0;
  auto t = parse_utc_time(j["updated"].get<std::string>());
  if (!t || *t >= now_us) return 0;
  return static_cast<double>(now_us - *t) / 1e6;
}

// The gzip of a /ports body: `head` (up to the ports' '['), the ports of `page` (indexes into
// the list, ascending) separated by ',', then "]}". Runs of whole blocks are the list's
// precompressed blocks (PortList::block); the rest is compressed here.
std::optional<std::string> gzip_page(const PortList& list, const std::string& head,
                                     const std::vector<uint32_t>& page) {
  constexpr size_t kN = PortList::kBlockPorts;
  GzipJoiner z;
  z.text(head);
  for (size_t k = 0; k < page.size(); ++k) {
    uint32_t i = page[k];
    if (k > 0 && i % kN == 0 && k + kN <= page.size() && page[k + kN - 1] == i + kN - 1)
      if (auto block = list.block(i / kN)) {
        z.chunk(*block);
        k += kN - 1;
        continue;
      }
    if (k) z.text(",");
    z.text(*list.json[i]);
  }
  z.text("]}");
  return z.finish();
}

std::string worst(const std::string& a, const std::string& b) {
  auto rank = [](std::string_view s) { return s == "down" ? 2 : s == "degraded" ? 1 : 0; };
  return rank(b) > rank(a) ? b : a;
}

}  // namespace api_ports_detail

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

store::PortRecord ApiCore::find_port(Call& c, const PortList& list) {
  using namespace api_ports_detail;
  const std::string& node = c.params.at(0);
  auto port = fabric::text::to_int<int>(c.params.at(1));
  if (!port || *port < 0 || *port > 255)
    throw ApiError(400, "port: must be a port number from 0 to 255");
  uint64_t guid = parse_guid(node);
  std::set<uint64_t> named;
  const store::PortRecord* found = nullptr;
  std::vector<uint32_t> candidates;  // from the indexes, not a walk over 200,000 ports
  if (auto it = list.by_name.find(node); it != list.by_name.end()) candidates = it->second;
  if (auto it = list.by_guid.find(guid); guid && it != list.by_guid.end())
    candidates.insert(candidates.end(), it->second.begin(), it->second.end());
  for (uint32_t i : candidates) {
    const store::PortRecord& p = list.ports[i];
    if (!node_matches(p, node, guid)) continue;
    if (p.node == node) named.insert(p.node_guid);
    if (p.port == *port) found = &p;
  }
  if (named.size() > 1)
    throw ApiError(400, "node: \"" + node + "\" names " + std::to_string(named.size()) +
                            " nodes; use the node's 0xGUID");
  if (!found)
    throw ApiError(404, "no port " + node + "/" + std::to_string(*port) + " in the store");
  return *found;
}

nlohmann::ordered_json ApiCore::health_sources(const std::vector<SourceHealth>& sources,
                                               std::string* status) {
  using namespace api_ports_detail;
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

nlohmann::ordered_json ApiCore::health_store(Call& c, std::string* status) {
  try {
    return {
        {"status", "ok"}, {"detail", ""}, {"schema_version", c.store(stores_).schema_version()}};
  } catch (const std::exception& e) {
    if (c.lease) c.lease->discard();
    *status = "down";
    return {{"status", "down"}, {"detail", e.what()}, {"schema_version", nullptr}};
  }
}

Response ApiCore::get_health(Call& c) {
  using namespace api_ports_detail;
  if (c.other) return other_health(c);
  Health h = backend_.health();
  ordered_json j;
  std::string status = "ok";
  ordered_json sources = health_sources(h.sources, &status);
  ordered_json st = health_store(c, &status);
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
    if (p.state != api_ports_detail::kActive && !ours && (!p.cable_id.empty() || !key.empty()))
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
  using namespace api_ports_detail;
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
    try {  // cursed routes: absent when probing is off or nothing was localized yet
      auto s = backend_.suspects();
      m.cursed_suspects = static_cast<int64_t>(s.value("suspects", nlohmann::json::array()).size());
      m.probe_observations = s.value("observations", int64_t{0});
    } catch (const ApiError&) {
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
    store::OutboxBacklog outbox = c.store(stores_).outbox_backlog();
    m.outbox_pending = outbox.pending;
    m.outbox_failing = outbox.failing;
    m.outbox_failed_attempts = outbox.failed_attempts;
    if (outbox.oldest)
      m.outbox_oldest_age_seconds = api_ports_detail::outbox_age_seconds(*outbox.oldest, c.now_us);
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
  return r;
}

Response ApiCore::get_ports(Call& c) {
  using namespace api_ports_detail;
  auto node = c.query.get("node");
  auto state = c.query.get("state");
  std::function<bool(uint8_t)> state_ok;
  if (state) state_ok = state_test(*state = lower(*state));  // 400 for an unknown state
  auto errors = c.query.boolean("has_errors");
  int64_t limit = c.query.integer("limit", 1, 5000, 1000);
  int64_t offset = c.query.integer("offset", 0, INT32_MAX, 0);
  bool gz = accepts_gzip(c.request.header("accept-encoding"));
  auto list = port_list(c);
  // The same query on the same list is the same answer: dashboards showing one page, and
  // their refreshes, are answered from the list's cache.
  std::string key = (node ? "n" + *node : "-") + '\n' + (state ? *state : "-") + '\n' +
                    (errors ? (*errors ? "1" : "0") : "-") + '\n' + std::to_string(limit) + '\n' +
                    std::to_string(offset) + (gz ? "\ngz" : "");
  Response r;
  auto body = list->cached(key);
  if (!body) {
    // Candidates: a node's ports from the indexes (by name and by GUID: both match), else all.
    std::vector<uint32_t> nodes;
    if (node) {
      if (auto it = list->by_name.find(*node); it != list->by_name.end()) nodes = it->second;
      if (uint64_t guid = parse_guid(*node))
        if (auto it = list->by_guid.find(guid); it != list->by_guid.end()) {
          nodes.insert(nodes.end(), it->second.begin(), it->second.end());
          std::sort(nodes.begin(), nodes.end());
          nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
        }
    }
    size_t n = node ? nodes.size() : list->ports.size();
    std::vector<uint32_t> page;
    size_t bytes = 0;
    int64_t total = 0;
    bool all = !node && !state && !errors;  // a plain page: no walk over the list
    for (size_t k = all ? std::min<size_t>(n, static_cast<size_t>(offset)) : 0; k < n; ++k) {
      if (all && static_cast<int64_t>(page.size()) >= limit) break;
      uint32_t i = node ? nodes[k] : static_cast<uint32_t>(k);
      uint8_t f = list->flags[i];
      if (state_ok && !state_ok(f)) continue;
      if (errors && ((f & PortList::kErrors) != 0) != *errors) continue;
      if (!all && (total++ < offset || static_cast<int64_t>(page.size()) >= limit)) continue;
      page.push_back(i);
      bytes += list->json[i]->size() + 1;
    }
    if (all) total = static_cast<int64_t>(n);
    int64_t next = offset + static_cast<int64_t>(page.size());
    ordered_json head;
    head["total"] = total;
    head["offset"] = offset;
    head["limit"] = limit;
    head["next_offset"] = next < total ? ordered_json(next) : ordered_json(nullptr);
    std::string out = dump_json(head);
    out.pop_back();  // '}': the ports follow
    out += ",\"ports\":[";
    size_t size = out.size() + bytes + (page.empty() ? 2 : 1);  // the plain body's length
    std::optional<std::string> z;
    if (gz && size >= kMinGzipBytes) z = gzip_page(*list, out, page);
    if (z) {
      out = "gz" + std::move(*z);  // marked, for the cache
    } else {
      out.reserve(size);
      for (size_t k = 0; k < page.size(); ++k) {
        if (k) out += ',';
        out += *list->json[page[k]];
      }
      out += "]}";
    }
    body = std::make_shared<const std::string>(std::move(out));
    list->cache(key, body);
  }
  if (body->compare(0, 2, "gz") == 0) {
    r.body.assign(*body, 2);
    r.headers.emplace_back("Content-Encoding", "gzip");
    r.headers.emplace_back("Vary", "Accept-Encoding");
  } else {
    r.body = *body;
  }
  return r;
}

}  // namespace ibw::web

// GET /health, /fabric, /ports, /ports/{node}/{port} (web/api.h).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "fabric/model.h"
#include "fabric/text_util.h"
#include "store/record_json.h"
#include "store/remedy_json.h"
#include "web/api_core.h"
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

// As ibqueryerrors reports ports: an error counter above zero (since the counters were last
// cleared), or one that rose in the last sweep (a counter reset in between).
bool has_errors(const store::PortRecord& p) {
  for (size_t i = 0; i < ingest::kCounterCount; ++i) {
    if (!ingest::is_error_counter(static_cast<ingest::Counter>(i))) continue;
    if ((p.counters.valid & (1u << i)) && p.counters.value[i] > 0) return true;
    if ((p.deltas_valid & (1u << i)) && p.deltas[i] > 0) return true;
  }
  return false;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Port state filter: down, init, armed, active (PortState) or disabled (PhysState Disabled,
// or disabled by ibwarden: a simulator may keep reporting such a port up).
bool state_matches(const store::PortRecord& p, const std::string& state, bool ours = false) {
  static const char* kNames[] = {"", "down", "init", "armed", "active"};
  if (state == "disabled") return ours || p.phys_state == kPhysDisabled;
  for (int i = 1; i <= 4; ++i)
    if (state == kNames[i]) return p.state == i;
  throw ApiError(400, "state: must be down, init, armed, active or disabled");
}

// Seconds since the oldest undelivered outbox item was queued: its payload is the order's JSON
// at that change, whose "updated" is the time of the change. 0 when it cannot be read.
double outbox_age_seconds(const store::OutboxItem& item, int64_t now_us) {
  auto j = nlohmann::json::parse(item.payload, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("updated") || !j["updated"].is_string()) return 0;
  auto t = parse_utc_time(j["updated"].get<std::string>());
  if (!t || *t >= now_us) return 0;
  return static_cast<double>(now_us - *t) / 1e6;
}

const char* worst(const char* a, const char* b) {
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

std::shared_ptr<const PortList> ApiCore::port_list(Call& c) {
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    bool fresh = ports_ && c.now_us >= ports_->loaded_us &&
                 c.now_us - ports_->loaded_us < options_.ports_cache_us;
    // While one request reloads an expired list, the others keep using it.
    if (fresh || (ports_ && ports_loading_)) return ports_;
    ports_loading_ = true;
    generation = ports_generation_;
  }
  std::shared_ptr<PortList> list;
  try {
    list = std::make_shared<PortList>();
    list->loaded_us = c.now_us;
    list->ports = c.store(stores_).ports();
    list->disabled = c.store(stores_).disabled_ports();
    // Rendered before it is shared: published first, every /ports request arriving while this
    // one renders (50-100 ms for 3,000 ports) would wait on the rendering, stalling all the
    // workers; this way they keep answering from the old list and only this request pays
    // (also when it is a /fabric or /metrics request: at most once per ports_cache_us).
    list->rendered();
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    ports_loading_ = false;
    throw;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ports_loading_ = false;
  if (generation == ports_generation_) ports_ = list;  // not if invalidated meanwhile
  return list;
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
  for (const auto& p : list.ports) {
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

Response ApiCore::get_health(Call& c) {
  using namespace api_ports_detail;
  Health h = backend_.health();
  ordered_json j;
  const char* status = "ok";
  ordered_json sources = ordered_json::object();
  for (const auto& s : h.sources) {
    std::string_view name = source_status_name(s.status);
    if (s.status == SourceStatus::degraded) status = worst(status, "degraded");
    if (s.status == SourceStatus::down) status = worst(status, "down");
    sources[s.name] = {
        {"status", name}, {"detail", s.detail}, {"last_ok", store::iso_time(s.last_ok_us)}};
  }
  ordered_json st;
  try {
    st = {{"status", "ok"}, {"detail", ""}, {"schema_version", c.store(stores_).schema_version()}};
  } catch (const std::exception& e) {
    if (c.lease) c.lease->discard();
    status = "down";
    st = {{"status", "down"}, {"detail", e.what()}, {"schema_version", nullptr}};
  }
  j["status"] = status;
  j["time"] = store::iso_time(c.now_us);
  j["started"] = store::iso_time(h.started_us);
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
        p.peer_guid ? store::link_key(p.node_guid, p.port, p.peer_guid, p.peer_port) : "";
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

OrderCounts count_orders(store::Store& st) {
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
  FabricCounts counts = count_fabric(*list);
  std::map<std::pair<uint64_t, int>, const store::PortRecord*> index;
  for (const auto& p : list->ports) index[{p.node_guid, p.port}] = &p;
  ordered_json disabled = ordered_json::array();
  for (const auto& d : list->disabled) {
    auto it = index.find({d.node_guid, d.port});
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
    disabled.push_back({{"node", it == index.end() ? "" : it->second->node},
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
  m.health = backend_.health();
  m.webhook = backend_.webhook_outbox();
  try {  // cursed routes: absent when probing is off or nothing was localized yet
    auto s = backend_.suspects();
    m.cursed_suspects = static_cast<int64_t>(s.value("suspects", nlohmann::json::array()).size());
    m.probe_observations = s.value("observations", int64_t{0});
  } catch (const ApiError&) {
  }
  try {
    auto list = port_list(c);
    FabricCounts counts = count_fabric(*list);
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

const std::vector<std::string>& PortList::rendered() const {
  std::call_once(rendered_once_, [this] {
    rendered_.reserve(ports.size());
    for (const auto& p : ports) {
      nlohmann::ordered_json j = store::port_json(p);
      j["disabled_by_ibwarden"] = disabled_entry(p.node_guid, p.port) != nullptr;
      rendered_.push_back(dump_json(j));
    }
  });
  return rendered_;
}

Response ApiCore::get_ports(Call& c) {
  using namespace api_ports_detail;
  auto node = c.query.get("node");
  auto state = c.query.get("state");
  if (state) {
    *state = lower(*state);
    state_matches(store::PortRecord(), *state);  // 400 for an unknown state
  }
  auto errors = c.query.boolean("has_errors");
  int64_t limit = c.query.integer("limit", 1, 5000, 1000);
  int64_t offset = c.query.integer("offset", 0, INT32_MAX, 0);
  auto list = port_list(c);
  const auto& rendered = list->rendered();
  uint64_t guid = node ? parse_guid(*node) : 0;
  std::vector<size_t> page;
  size_t bytes = 0;
  int64_t total = 0;
  for (size_t i = 0; i < list->ports.size(); ++i) {
    const store::PortRecord& p = list->ports[i];
    if (node && !node_matches(p, *node, guid)) continue;
    if (state && !state_matches(p, *state, list->disabled_entry(p.node_guid, p.port) != nullptr))
      continue;
    if (errors && has_errors(p) != *errors) continue;
    if (total++ < offset || static_cast<int64_t>(page.size()) >= limit) continue;
    page.push_back(i);
    bytes += rendered[i].size() + 1;
  }
  int64_t next = offset + static_cast<int64_t>(page.size());
  ordered_json head;
  head["total"] = total;
  head["offset"] = offset;
  head["limit"] = limit;
  head["next_offset"] = next < total ? ordered_json(next) : ordered_json(nullptr);
  Response r;
  r.body = dump_json(head);
  r.body.pop_back();  // '}': the ports follow
  r.body.reserve(r.body.size() + bytes + 16);
  r.body += ",\"ports\":[";
  for (size_t k = 0; k < page.size(); ++k) {
    if (k) r.body += ',';
    r.body += rendered[page[k]];
  }
  r.body += "]}";
  return r;
}

}  // namespace ibw::web

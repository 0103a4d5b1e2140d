// GET /ports/{node}/{port}: the port, its counter history (since at most 7 days back: an
// earlier since is clamped, "since_clamped": true), events, work order and decisions.
#include <algorithm>
#include <iterator>

#include "fabric/model.h"
#include "store/record_json.h"
#include "store/remedy_json.h"
#include "web/api_core.h"

namespace ibw::web {
namespace api_port_detail {

using nlohmann::ordered_json;

constexpr int64_t kHour = 3600LL * 1'000'000;
// The longest history one request reads (issue 31: since=0 pulled a port's whole history):
// an earlier `since` is clamped, and the answer says so ("since", "since_clamped").
constexpr int64_t kMaxHistorySpan = 7 * 24 * kHour;
constexpr size_t kMaxEvents = 200;
constexpr size_t kMaxDecisions = 50;

// Bit i set for each counter the `counters` parameter names (all when absent).
uint32_t counter_mask(const std::optional<std::string>& list) {
  if (!list) return (1u << ingest::kCounterCount) - 1;
  uint32_t mask = 0;
  std::string_view rest = *list;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view name = rest.substr(0, comma);
    auto c = ingest::parse_counter(name);
    if (!c) throw ApiError(400, "counters: unknown counter \"" + std::string(name) + "\"");
    mask |= 1u << static_cast<unsigned>(*c);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return mask;
}

// Column-wise history: {"times": [...], "counters": {name: [value or null, ...]}}, at most
// max_points samples (every k-th, always keeping the newest).
ordered_json history_json(const std::vector<ingest::CounterSample>& samples, size_t max_points,
                          uint32_t mask) {
  size_t n = samples.size();
  size_t step = n > max_points ? (n + max_points - 1) / max_points : 1;
  std::vector<const ingest::CounterSample*> picked;
  for (size_t i = (n - 1) % step; i < n; i += step) picked.push_back(&samples[i]);
  ordered_json times = ordered_json::array();
  for (const auto* s : picked) times.push_back(store::iso_time(s->time_us));
  ordered_json counters = ordered_json::object();
  for (size_t c = 0; c < ingest::kCounterCount; ++c) {
    auto counter = static_cast<ingest::Counter>(c);
    if (!(mask & (1u << c))) continue;
    bool any = false;
    ordered_json values = ordered_json::array();
    for (const auto* s : picked) {
      any = any || s->has(counter);
      values.push_back(s->has(counter) ? ordered_json(s->get(counter)) : ordered_json(nullptr));
    }
    if (any) counters[std::string(ingest::counter_name(counter))] = std::move(values);
  }
  return {{"samples", n}, {"step", step}, {"times", times}, {"counters", counters}};
}

// The order of the link at this port: by the link key of its disabled entry or current peer,
// else the most recently updated order with the port at either end.
std::optional<core::WorkOrder> order_of(store::RemedyStore& st, const store::PortRecord& p,
                                        const core::DisabledPort* disabled) {
  if (disabled && !disabled->link_key.empty())
    if (auto o = st.workorder_by_link(disabled->link_key)) return o;
  if (p.peer_guid)
    if (auto o =
            st.workorder_by_link(core::link_key(p.node_guid, p.port, p.peer_guid, p.peer_port)))
      return o;
  store::WorkOrderQuery q;
  q.limit = 0;
  std::optional<core::WorkOrder> best;
  for (auto& o : st.workorders(q)) {
    bool here = (o.a.guid == p.node_guid && o.a.port == p.port) ||
                (o.b.guid == p.node_guid && o.b.port == p.port);
    if (here && (!best || o.updated_us >= best->updated_us)) best = std::move(o);
  }
  return best;
}

}  // namespace api_port_detail

Response ApiCore::get_port(Call& c) {
  using namespace api_port_detail;
  int64_t since = c.query.time("since", c.now_us, c.now_us - kHour);
  const bool clamped = since < c.now_us - kMaxHistorySpan;
  if (clamped) since = c.now_us - kMaxHistorySpan;
  auto max_points = static_cast<size_t>(c.query.integer("max_points", 2, 100'000, 720));
  uint32_t mask = counter_mask(c.query.get("counters"));
  auto list = port_list(c);
  store::PortRecord p = find_port(c, *list);
  store::Store& st = c.store(stores_);
  const core::DisabledPort* disabled = list->disabled_entry(p.node_guid, p.port);

  ordered_json port = store::port_json(p);
  port["disabled_by_ibwarden"] = disabled != nullptr;

  // The link's events from either end (a far end often reports the drop or the counter jump),
  // as `ibwarden events --port` shows them.
  store::EventQuery eq;
  eq.since_us = since;
  eq.node_guid = p.node_guid;
  eq.port = p.port;
  eq.limit = 0;
  auto events = st.events(eq);
  if (p.peer_guid) {
    eq.node_guid = p.peer_guid;
    eq.port = p.peer_port;
    auto far = st.events(eq);
    events.insert(events.end(), std::make_move_iterator(far.begin()),
                  std::make_move_iterator(far.end()));
    std::sort(events.begin(), events.end(),
              [](const store::StoredEvent& a, const store::StoredEvent& b) { return a.id < b.id; });
  }
  size_t first = events.size() > kMaxEvents ? events.size() - kMaxEvents : 0;
  ordered_json ev = ordered_json::array();
  for (size_t i = first; i < events.size(); ++i) ev.push_back(store::event_json(events[i]));

  auto order = order_of(st, p, disabled);
  std::string key = order ? order->link_key
                    : disabled && !disabled->link_key.empty()
                        ? disabled->link_key
                        : core::link_key(p.node_guid, p.port, p.peer_guid, p.peer_port);
  store::DecisionQuery dq;
  dq.link_key = key;
  dq.limit = 0;
  auto decisions = st.decisions(dq);
  size_t dfirst = decisions.size() > kMaxDecisions ? decisions.size() - kMaxDecisions : 0;
  ordered_json dj = ordered_json::array();
  for (size_t i = dfirst; i < decisions.size(); ++i)
    dj.push_back(ordered(store::decision_json(decisions[i])));

  ordered_json j;
  j["port"] = std::move(port);
  j["disabled"] = disabled ? ordered_json{{"since", store::iso_time(disabled->time_us)},
                                          {"decision_id", disabled->decision_id},
                                          {"link_key", disabled->link_key}}
                           : ordered_json(nullptr);
  j["since"] = store::iso_time(since);
  j["since_clamped"] = clamped;
  j["history"] = history_json(st.samples(p.node_guid, p.port, since), max_points, mask);
  j["events"] = std::move(ev);
  j["events_truncated"] = first > 0;
  j["workorder"] = order ? ordered(store::workorder_json(*order)) : ordered_json(nullptr);
  j["decisions"] = std::move(dj);
  return json_response(200, j);
}

}  // namespace ibw::web

// UFM as a daemon source: events and telemetry threads; see ufm_source.h.
#include "daemon/ufm_source.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>
#include <unordered_map>

#include "daemon/logger.h"
#include "daemon/ufm_inventory.h"
#include "daemon/ufm_setup.h"
#include "ingest/counter_tracker.h"
#include "ingest/ufm/event_poller.h"

namespace ibw::daemon {
namespace ufm_source_detail {

// Events polls between reads of GET /resources/ports and /resources/links (the first poll
// reads them too): once a minute at the default 10 s poll_interval. See ufm_inventory.h.
constexpr int kInventoryEvery = 6;
constexpr auto kTopologyWait = std::chrono::seconds(30);

// Display names from the fabric (UFM names hosts by node description, switches by its own
// system name), then the correlator's peer and cable.
void name_events(const Topology* topo, std::vector<ingest::Event>& events) {
  if (!topo) return;
  const ingest::Correlator& corr = *topo->correlator;
  for (auto& e : events) {
    if (e.node_guid)
      if (std::string n = corr.node_name(e.node_guid); !n.empty()) e.node = std::move(n);
    if (e.peer_guid)
      if (std::string n = corr.node_name(e.peer_guid); !n.empty()) e.peer_node = std::move(n);
    corr.enrich(e);
  }
}

std::string offset_text(int64_t us) {
  int64_t s = us / 1'000'000, min = s / 60;
  if (min < 2) return std::to_string(s) + " s";
  return min >= 120 ? std::to_string(min / 60) + " h " + std::to_string(min % 60) + " min"
                    : std::to_string(min) + " min";
}

// Hands them to the rules (after the store push) and evaluates when any was kept.
void feed_rules(const UfmSourceHooks& hooks, const std::vector<ingest::Event>& events,
                const std::shared_ptr<const Topology>& topo) {
  if (!hooks.rules || events.empty()) return;
  if (hooks.rules->add_events(events) && topo) hooks.evaluate(topo);
}

bool has_rows(const store::WriteBatch& b) {
  return !b.events.empty() || !b.ufm_ports.empty() || !b.ufm_ports_removed.empty() ||
         !b.cursors.empty();
}

void log_inventory(const char* msg, const UfmInventoryResult& r, bool ports) {
  nlohmann::json fields = {{ports ? "ports" : "alarms", r.listed},
                           {ports ? "changed" : "raised", r.changed},
                           {ports ? "removed" : "cleared", r.removed},
                           {"events", r.batch.events.size()}};
  if (ports) fields["links"] = r.links;
  if (!r.error.empty()) fields["error"] = r.error;
  log(r.changed || r.removed || !r.error.empty() ? LogLevel::info : LogLevel::debug, msg,
      std::move(fields));
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace ufm_source_detail

void name_ufm_events(const Topology* topo, std::vector<ingest::Event>& events) {
  ufm_source_detail::name_events(topo, events);
}

std::vector<ingest::Event> ufm_rule_events(const UfmSourceHooks& hooks,
                                           const std::vector<ingest::Event>& events,
                                           int64_t now_us) {
  std::vector<ingest::Event> out;
  if (hooks.rules)
    for (const auto& e : events) {
      if (!hooks.rules->wants(e) || e.time_us > now_us + kUfmAheadToleranceUs) continue;
      out.push_back(e);
      out.back().time_us = std::min(e.time_us, now_us);
    }
  return out;
}

std::optional<std::string> ufm_clock_warning(const std::vector<ingest::UfmEvent>& fresh,
                                             int64_t now_us, bool backlog) {
  constexpr int64_t kBehind = 30LL * 60'000'000;
  int64_t newest = 0;
  for (const auto& e : fresh) newest = std::max(newest, e.time_us);
  if (!newest) return std::nullopt;  // nothing new, or no readable timestamp
  using ufm_source_detail::offset_text;
  if (newest - now_us > kUfmAheadToleranceUs)
    return "the newest UFM event is " + offset_text(newest - now_us) +
           " ahead of this host's clock: check ufm.timezone (UFM's local zone) and both clocks; "
           "events that far ahead are stored but left out of the rules";
  if (!backlog && now_us - newest > kBehind)
    return "the newest UFM event of a steady poll is " + offset_text(now_us - newest) +
           " behind this host's clock: check ufm.timezone (UFM's local zone) and both clocks; "
           "rule windows may miss UFM's events";
  return std::nullopt;
}

UfmSource::UfmSource(const config::Config& cfg) : cfg_(cfg) {
  const config::UfmSection& u = *cfg_.ufm;
  client_ = std::make_unique<ingest::UfmClient>(ufm_client_options(u, ufm_credentials(u)), clock_);
  if (u.telemetry.primary && cfg_.counters.enabled) {
    telemetry_ = std::make_unique<ingest::UfmClient>(
        ufm_telemetry_options(u, *u.telemetry.primary, cfg_.counters.interval_us), clock_);
    if (u.telemetry.secondary)
      telemetry_fallback_ = std::make_unique<ingest::UfmClient>(
          ufm_telemetry_options(u, *u.telemetry.secondary, cfg_.counters.interval_us), clock_);
  }
}

UfmSource::~UfmSource() = default;

void UfmSource::nap(const UfmSourceHooks& hooks, int64_t us) const {
  auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (*hooks.running && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(50), until - std::chrono::steady_clock::now()));
}

void UfmSource::report(const UfmSourceHooks& hooks, const std::string& name,
                       ingest::ServiceHealth h, const std::string& detail) {
  SourceHealthEntry entry{name, h.state, h.state == ingest::HealthState::ok ? "" : detail,
                          h.last_success_us, clock_.now_us()};
  if (!hooks.health->set(entry)) return;
  nlohmann::json fields = {{"source", name},
                           {"state", std::string(ingest::health_state_name(h.state))},
                           {"breaker", std::string(ingest::breaker_state_name(h.breaker))},
                           {"consecutive_failures", h.consecutive_failures}};
  if (!entry.detail.empty()) fields["error"] = entry.detail;
  log(h.state == ingest::HealthState::ok ? LogLevel::info : LogLevel::warning, "source health",
      std::move(fields));
}

void UfmSource::run_events(const UfmSourceHooks& hooks) {
  namespace d = ufm_source_detail;
  const config::UfmSection& u = *cfg_.ufm;
  ingest::UfmPollerOptions po;
  po.time.utc_offset_s = u.utc_offset_s;
  ingest::UfmEventPoller poller(*client_, po, cursor_);
  UfmInventory inventory(*client_, po.time, alarm_cursor_, ufm_ports_);
  ufm_ports_.clear();
  std::string stored_cursor = cursor_.value_or("");
  int polls = 0;
  bool first_poll = true;  // its backlog may be old: no "behind" clock warning
  constexpr int64_t kHourUs = 3600LL * 1'000'000;
  int64_t clock_warned_us = -kHourUs;  // one clock warning an hour at most
  auto begun = std::chrono::steady_clock::now();
  while (*hooks.running) {
    // Wait a little for the first discovery, so events get fabric names and cables; UFM
    // keeps its events, and a fabric that cannot be discovered must not stop this source.
    auto topo = hooks.topology();
    if (!topo && std::chrono::steady_clock::now() - begun < d::kTopologyWait) {
      nap(hooks, 100'000);
      continue;
    }
    auto started = std::chrono::steady_clock::now();
    std::vector<std::string> errors;  // of this cycle, for health
    if (polls++ % d::kInventoryEvery == 0) {
      UfmInventoryResult ports = inventory.poll_ports(topo.get(), clock_.now_us());
      if (!ports.error.empty()) errors.push_back(ports.error);
      if (ports.ok) {
        poller.set_port_index(inventory.index());
        d::log_inventory("ufm ports polled", ports, true);
        auto for_rules =
            ufm_rule_events(hooks, ports.batch.events, clock_.now_us());  // high_ber changes
        if (d::has_rows(ports.batch) && !hooks.push(std::move(ports.batch))) return;
        d::feed_rules(hooks, for_rules, topo);
      } else {
        polls = 0;  // try again next poll
      }
    }
    ingest::UfmPollResult r = poller.poll();
    if (!r.ok) errors.push_back(r.error);
    if (r.ok) {
      d::name_events(topo.get(), r.events);
      inventory.fill_peers(topo.get(), r.events);
      std::vector<ingest::Event> for_rules = ufm_rule_events(hooks, r.events, clock_.now_us());
      if (auto w = ufm_clock_warning(r.fresh, clock_.now_us(), first_poll || r.reset);
          w && clock_.now_us() - clock_warned_us >= kHourUs) {
        log(LogLevel::warning, "ufm clock offset", {{"detail", *w}});
        clock_warned_us = clock_.now_us();
      }
      first_poll = false;
      log(r.events.empty() && !r.reset ? LogLevel::debug : LogLevel::info, "ufm events polled",
          {{"fetched", r.fetched},
           {"new", r.fresh.size()},
           {"delivered", r.events.size()},
           {"duplicates", r.duplicates},
           {"storms", r.storms.size()},
           {"held", r.held},
           {"reset", r.reset},
           {"parse_ms", r.parse_us / 1000.0},
           {"ingest_ms", r.ingest_us / 1000.0},
           {"elapsed_ms", r.elapsed_us / 1000.0}});
      if (!r.events.empty() || r.cursor != stored_cursor) {
        store::WriteBatch batch;
        batch.events = std::move(r.events);
        batch.cursors.emplace_back("ufm", r.cursor);
        stored_cursor = r.cursor;
        if (!hooks.push(std::move(batch))) return;
      }
      d::feed_rules(hooks, for_rules, topo);
    }
    UfmInventoryResult alarms = inventory.poll_alarms(topo.get(), clock_.now_us());
    if (alarms.ok) {
      d::log_inventory("ufm alarms polled", alarms, false);
      if (d::has_rows(alarms.batch) && !hooks.push(std::move(alarms.batch))) return;
    } else {
      errors.push_back(alarms.error);
    }
    ingest::ServiceHealth h = client_->health();
    if (!errors.empty() && h.state == ingest::HealthState::ok)
      h.state = ingest::HealthState::degraded;
    report(hooks, "ufm", h, errors.empty() ? h.last_error : d::joined(errors));
    auto spent = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::steady_clock::now() - started)
                     .count();
    nap(hooks, std::max<int64_t>(u.poll_interval_us - spent, 10'000));
  }
}

void UfmSource::run_telemetry(const UfmSourceHooks& hooks) {
  if (!telemetry_) return;
  ingest::TrackerOptions topts;
  topts.jump_threshold = cfg_.counters.jump_threshold;
  ingest::CounterTracker tracker(topts);
  std::unordered_map<uint64_t, int64_t> last_time;  // guid * 256 + port -> last reading
  while (*hooks.running) {
    auto topo = hooks.topology();
    if (!topo) {
      nap(hooks, 200'000);
      continue;
    }
    auto started = std::chrono::steady_clock::now();
    auto ms_since = [](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t)
          .count();
    };
    ingest::UfmTelemetryFetched f = telemetry_->telemetry("");
    double fetch_ms = ms_since(started);  // transfer + parse
    std::string detail = f.ok() ? "" : "primary: " + f.response.error + f.parsed.error;
    if (!f.ok() && telemetry_fallback_) {
      ingest::UfmTelemetryFetched g = telemetry_fallback_->telemetry("");
      if (g.ok())
        f = std::move(g);
      else
        detail += "; secondary: " + g.response.error + g.parsed.error;
    }
    ingest::ServiceHealth h = telemetry_->health();
    if (f.ok() && h.state != ingest::HealthState::ok) h.state = ingest::HealthState::degraded;
    report(hooks, "ufm_telemetry", h, detail);
    if (f.ok()) {
      auto ingest_start = std::chrono::steady_clock::now();
      std::unique_lock<std::mutex> publish(*hooks.publish_mutex);
      store::WriteBatch batch;
      std::vector<ingest::CounterDelta> deltas;
      deltas.reserve(f.parsed.samples.size());
      batch.samples.reserve(f.parsed.samples.size());
      for (auto& s : f.parsed.samples) {
        if (!topo->correlator->has_port(s.node_guid, s.port)) continue;  // not in the fabric
        int64_t& last = last_time[s.node_guid * 256 + static_cast<uint64_t>(s.port)];
        if (s.time_us <= last) continue;  // the same reading again
        last = s.time_us;
        deltas.push_back(tracker.update(s, &batch.events));
        batch.samples.push_back(s);
      }
      for (auto& e : batch.events) topo->correlator->enrich(e);
      hooks.ports->apply_counters(deltas);
      if (hooks.rules) hooks.rules->add_deltas(deltas);
      batch.port_counters = std::move(deltas);
      size_t samples = batch.samples.size(), events = batch.events.size();
      if (!hooks.push(std::move(batch))) return;
      publish.unlock();
      double ingest_ms = ms_since(ingest_start);
      auto eval_start = std::chrono::steady_clock::now();
      hooks.evaluate(topo);
      // One line per scrape with where its time went; the store writes the batch on the
      // daemon's main thread ("counters stored" gives that part).
      log(LogLevel::info, "telemetry sweep",
          {{"rows", f.parsed.rows},
           {"samples", samples},
           {"events", events},
           {"bytes", f.bytes},
           {"fetch_ms", fetch_ms - f.parse_us / 1000.0},
           {"parse_ms", f.parse_us / 1000.0},
           {"ingest_ms", ingest_ms},
           {"evaluate_ms", ms_since(eval_start)},
           {"elapsed_ms", ms_since(started)}});
    }
    auto spent = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::steady_clock::now() - started)
                     .count();
    nap(hooks, std::max<int64_t>(cfg_.counters.interval_us - spent, 10'000));
  }
}

}  // namespace ibw::daemon

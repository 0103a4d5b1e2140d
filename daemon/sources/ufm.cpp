// UFM's events, alarms and resources as a daemon source; see daemon/sources/ufm.h.
#include "daemon/sources/ufm.h"

#include <algorithm>
#include <chrono>

#include "daemon/logger.h"
#include "daemon/memory_stats.h"
#include "daemon/sources/ufm_inventory.h"
#include "daemon/ufm_setup.h"
#include "ingest/ufm/event_poller.h"

namespace ibw::daemon {
namespace ufm_source_detail {

// Events polls between reads of GET /resources/ports and /resources/links (the first poll
// reads them too): once a minute at the default 10 s poll_interval. See ufm_inventory.h.
constexpr int kInventoryEvery = 6;
// Polls an inventory read may be postponed in a row so as not to meet a UFM Telemetry scrape
// (daemon/scrape_schedule.h); the first read, which the event poller's port index needs, is
// never postponed.
constexpr int kMaxPostponed = 5;
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

// How a ports read went besides its result.
struct ReadTiming {
  int64_t read_us = 0;        // the read itself
  int postponed = 0;          // polls it was postponed by (a telemetry scrape near)
  double trim_before_ms = 0;  // release_free_memory() before it
};

// `ports`: a ports read, with its timing.
void log_inventory(const char* msg, const UfmInventoryResult& r, bool ports,
                   ReadTiming timing = {}) {
  nlohmann::json fields = {{ports ? "ports" : "alarms", r.listed},
                           {ports ? "changed" : "raised", r.changed},
                           {ports ? "removed" : "cleared", r.removed},
                           {"events", r.batch.events.size()}};
  if (ports) {
    fields["links"] = r.links;
    fields["elapsed_ms"] = timing.read_us / 1000.0;
    fields["postponed"] = timing.postponed;
    fields["trim_before_ms"] = timing.trim_before_ms;
  }
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

std::vector<ingest::Event> ufm_rule_events(const rules::RuleRunner* rules,
                                           const std::vector<ingest::Event>& events,
                                           int64_t now_us) {
  std::vector<ingest::Event> out;
  if (rules)
    for (const auto& e : events) {
      if (!rules->wants(e) || e.time_us > now_us + kUfmAheadToleranceUs) continue;
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

UfmEventsSource::UfmEventsSource(const config::Config& cfg) : cfg_(cfg) {
  const config::UfmSection& u = *cfg_.ufm;
  client_ = std::make_unique<ingest::UfmClient>(ufm_client_options(u, ufm_credentials(u)), clock_);
}

UfmEventsSource::~UfmEventsSource() = default;

void UfmEventsSource::start(SourceContext& ctx) {
  cursor_ = ctx.store().cursor("ufm");
  alarm_cursor_ = ctx.store().cursor("ufm_alarms");
  ufm_ports_ = ctx.store().ufm_ports();
}

void report_ufm_health(SourceContext& ctx, const std::string& name, ingest::ServiceHealth h,
                       const std::string& detail) {
  SourceHealthEntry entry{name, h.state, h.state == ingest::HealthState::ok ? "" : detail,
                          h.last_success_us, ctx.clock().now_us()};
  if (!ctx.report(entry)) return;
  nlohmann::json fields = {{"source", name},
                           {"state", std::string(ingest::health_state_name(h.state))},
                           {"breaker", std::string(ingest::breaker_state_name(h.breaker))},
                           {"consecutive_failures", h.consecutive_failures}};
  if (!entry.detail.empty()) fields["error"] = entry.detail;
  log(h.state == ingest::HealthState::ok ? LogLevel::info : LogLevel::warning, "source health",
      std::move(fields));
}

void UfmEventsSource::run(SourceContext& ctx) {
  namespace d = ufm_source_detail;
  const config::UfmSection& u = *cfg_.ufm;
  ingest::UfmPollerOptions po;
  po.time.utc_offset_s = u.utc_offset_s;
  ingest::UfmEventPoller poller(*client_, po, cursor_);
  UfmInventory inventory(*client_, po.time, alarm_cursor_, ufm_ports_);
  ufm_ports_.clear();
  std::string stored_cursor = cursor_.value_or("");
  int polls = 0;
  int postponed = 0;         // inventory reads postponed in a row (a telemetry scrape near)
  int64_t last_read_us = 0;  // how long the last inventory read took
  bool first_poll = true;    // its backlog may be old: no "behind" clock warning
  constexpr int64_t kHourUs = 3600LL * 1'000'000;
  int64_t clock_warned_us = -kHourUs;  // one clock warning an hour at most
  auto begun = std::chrono::steady_clock::now();
  while (ctx.running()) {
    // Wait a little for the first discovery, so events get fabric names and cables; UFM
    // keeps its events, and a fabric that cannot be discovered must not stop this source.
    auto topo = ctx.topology();
    if (!topo && std::chrono::steady_clock::now() - begun < d::kTopologyWait) {
      ctx.nap(std::chrono::milliseconds(100));
      continue;
    }
    auto started = std::chrono::steady_clock::now();
    std::vector<std::string> errors;  // of this cycle, for health
    const bool inventory_due = polls++ % d::kInventoryEvery == 0;
    if (inventory_due && inventory.index() && postponed < d::kMaxPostponed &&
        !ctx.fabric().scrapes.clear_for(steady_us(), last_read_us)) {
      ++postponed;
      polls = 0;  // due again on the next poll
    } else if (inventory_due) {
      // The read peaks over what every arena keeps free since the last one (the scrapes' and
      // store writes' buffers): given back first, so that the peaks do not add up. The trim
      // after the read would give it back anyway; the scrapes re-fault it either way.
      const double trim_before_ms = release_free_memory();
      const int64_t read_start = steady_us();
      UfmInventoryResult ports = inventory.poll_ports(topo.get(), clock_.now_us());
      last_read_us = steady_us() - read_start;
      if (!ports.error.empty()) errors.push_back(ports.error);
      if (ports.ok) {
        poller.set_port_index(inventory.index());
        d::log_inventory("ufm ports polled", ports, true,
                         {last_read_us, postponed, trim_before_ms});
        postponed = 0;
        auto for_rules =
            ufm_rule_events(ctx.rules(), ports.batch.events, clock_.now_us());  // high_ber
        if (!ctx.publish(topo, std::move(ports.batch), nullptr, Evaluate::with_rule_events,
                         &for_rules)
                 .queued)
          return;
        // The read's text, records and states are freed now, in this thread's arena.
        double trim_ms = release_free_memory();
        log_memory("ufm inventory", trim_ms);
      } else {
        polls = 0;  // try again next poll
      }
    }
    ingest::UfmPollResult r = poller.poll();
    if (!r.ok) errors.push_back(r.error);
    if (r.ok) {
      d::name_events(topo.get(), r.events);
      inventory.fill_peers(topo.get(), r.events);
      std::vector<ingest::Event> for_rules =
          ufm_rule_events(ctx.rules(), r.events, clock_.now_us());
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
      store::WriteBatch batch;
      if (!r.events.empty() || r.cursor != stored_cursor) {
        batch.events = std::move(r.events);
        batch.cursors.emplace_back("ufm", r.cursor);
        stored_cursor = r.cursor;
      }
      if (!ctx.publish(topo, std::move(batch), nullptr, Evaluate::with_rule_events, &for_rules)
               .queued)
        return;
    }
    UfmInventoryResult alarms = inventory.poll_alarms(topo.get(), clock_.now_us());
    if (alarms.ok) {
      d::log_inventory("ufm alarms polled", alarms, false);
      if (!ctx.publish(topo, std::move(alarms.batch), nullptr, Evaluate::never).queued) return;
    } else {
      errors.push_back(alarms.error);
    }
    ingest::ServiceHealth h = client_->health();
    if (!errors.empty() && h.state == ingest::HealthState::ok)
      h.state = ingest::HealthState::degraded;
    report_ufm_health(ctx, "ufm", h, errors.empty() ? h.last_error : d::joined(errors));
    auto spent = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::steady_clock::now() - started)
                     .count();
    ctx.nap(std::chrono::microseconds(std::max<int64_t>(u.poll_interval_us - spent, 10'000)));
  }
}

}  // namespace ibw::daemon

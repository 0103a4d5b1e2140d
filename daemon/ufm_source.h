// UfmSource: UFM as a source of the daemon (`ufm:` in the configuration), two threads.
//
// Events (run_events), every ufm.poll_interval:
//  - UfmEventPoller::poll() (GET /app/events, de-duplication on id, id resets, storm grouping,
//    ingest/ufm/event_poller.h) gives internal events; each is named from the fabric (display
//    names of its node and peer when the topology knows their GUIDs) and enriched by the
//    topology's correlator (peer, cable from the plan);
//  - the events and the poller's cursor ("ufm") go in ONE store batch, so a restart resumes
//    after the last stored event (and the store drops any re-delivered dedup_key);
//  - storms (> 50 events in 1 s, e.g. a UFM restart) are stored as one ufm_storm summary and
//    never reach the rules;
//  - link_down / link_up events go to the rule runner like OpenSM's, so UFM flaps count for
//    link_flap (RuleRunner drops the same port's same-direction report from another source
//    within a few seconds, so a flap seen by OpenSM and UFM counts once; rules/runner.h);
//    high_ber (917/918) and the ports poll's high_ber / high_ber_cleared go there too, for
//    ufm_high_ber; each kind only when a loaded rule uses it (RuleRunner::wants);
//  - UFM's resources are polled on the same thread and client (daemon/ufm_inventory.h):
//    GET /app/alarms after every events poll (ufm_alarm / ufm_alarm_cleared events, open set
//    in cursor "ufm_alarms"); GET /resources/ports and /resources/links before the first poll
//    and every kInventoryEvery-th (6) poll after it (UFM's view of each port in the store's
//    ufm_ports, high_ber events, the port index that turns labels in event text into
//    numbers, peers for events where the topology has none).
//  - Health is reported once per poll cycle: the client's state after the cycle, but at
//    least degraded when any call of the cycle failed (the errors joined as detail), so a
//    failing endpoint is not hidden by a later call that succeeded.
// Telemetry (run_telemetry), when ufm.telemetry.primary is set and counters.enabled: every
// counters.interval the primary endpoint (the secondary when the primary fails) is parsed
// into CounterSamples and fed through the MAD sweep's path: CounterTracker deltas ->
// PortTable::apply_counters, RuleRunner::add_deltas, stored samples. UFM Telemetry then
// replaces the MAD sweep (the daemon does not start it), so no port has two counter sources;
// the source has its own CounterTracker (not seeded from the store: the first reading after
// a start is a baseline), and a reading no newer than the previous one of a port is skipped
// (UFM Telemetry serves its latest sample until it takes the next).
// Health: after every call the client's ServiceHealth goes to the SourceHealthBoard as "ufm"
// or "ufm_telemetry"; transitions (ok, degraded, down) are logged with the last error.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "config/config.h"
#include "daemon/port_table.h"
#include "daemon/source_health.h"
#include "daemon/topology.h"
#include "ingest/clock.h"
#include "ingest/ufm/client.h"
#include "ingest/ufm/port_state.h"
#include "rules/runner.h"
#include "store/store.h"

namespace ibw::daemon {

// What the source needs from the daemon (whose Runtime stays private to daemon.cpp).
struct UfmSourceHooks {
  std::function<std::shared_ptr<const Topology>()> topology;  // null until discovered
  std::function<bool(store::WriteBatch)> push;  // to the store writer; false when stopping
  std::function<void(const std::shared_ptr<const Topology>&)> evaluate;  // rules, new data
  std::mutex* publish_mutex = nullptr;  // held from a PortTable update until its batch is queued
  PortTable* ports = nullptr;
  rules::RuleRunner* rules = nullptr;  // null without rules
  SourceHealthBoard* health = nullptr;
  const std::atomic<bool>* running = nullptr;
};

// UFM stamps events in its local time with no zone (ufm.timezone says which), so a wrong
// zone or clock shifts every event. Up to this much ahead of this host's clock (clock drift,
// second-resolution stamps) an event counts as now for the rules; further ahead it is left
// out of them. Shorter than any rule window, so the clamp can neither bunch events spread
// over a window nor make old evidence (a backlog, a replayed event.log) look new.
inline constexpr int64_t kUfmAheadToleranceUs = 30'000'000;

// In a steady poll (not the first one nor one after an id reset, whose backlog may be old)
// the newest new event should be about now: more than kUfmAheadToleranceUs ahead of this
// host's clock, or more than 30 minutes behind, means ufm.timezone or a clock is wrong.
// Returns the warning, else nullopt.
std::optional<std::string> ufm_clock_warning(const std::vector<ingest::UfmEvent>& fresh,
                                             int64_t now_us, bool backlog);

// Display names from the fabric for UFM events, then the correlator's peer and cable.
void name_ufm_events(const Topology* topo, std::vector<ingest::Event>& events);

// Copies of the events the loaded rules use (link_down / link_up, high_ber(_cleared):
// RuleRunner::wants), taken before the batch goes to the store. A time up to
// kUfmAheadToleranceUs ahead of now becomes now (rule windows end at now, so it would
// otherwise count only once this host's clock caught up); one further ahead is left out.
// The stored events keep UFM's time.
std::vector<ingest::Event> ufm_rule_events(const UfmSourceHooks& hooks,
                                           const std::vector<ingest::Event>& events,
                                           int64_t now_us);

// Tails UFM's event.log (cfg.ufm->event_log) with the same tailer as the OpenSM log, from
// `cursor` (the stored "ufm_event_log" position; none = the end of the file), until
// hooks.running turns false. Lines become the same events as GET /app/events gives, with the
// same dedup_key ("ufm:<id>:<time>"), so an event seen both ways is stored once. Link events
// feed the rules like the REST poller's.
void run_ufm_event_log(const config::Config& cfg, const UfmSourceHooks& hooks,
                       std::optional<std::string> cursor);

class UfmSource {
 public:
  // Reads the credentials (ufm_setup.h; throws naming the variable or file) and builds the
  // clients. cfg.ufm must be set.
  explicit UfmSource(const config::Config& cfg);
  ~UfmSource();

  // What the store kept from the previous run (before run_events): the events cursor
  // ("ufm"), the open alarms ("ufm_alarms") and UFM's port view (Store::ufm_ports()).
  void resume(std::optional<std::string> cursor, std::optional<std::string> alarm_cursor = {},
              std::vector<ingest::UfmPortState> ufm_ports = {}) {
    cursor_ = std::move(cursor);
    alarm_cursor_ = std::move(alarm_cursor);
    ufm_ports_ = std::move(ufm_ports);
  }
  bool has_telemetry() const { return telemetry_ != nullptr; }

  // Thread bodies; each returns when *hooks.running turns false.
  void run_events(const UfmSourceHooks& hooks);
  void run_telemetry(const UfmSourceHooks& hooks);

 private:
  void report(const UfmSourceHooks& hooks, const std::string& name, ingest::ServiceHealth h,
              const std::string& detail);
  void nap(const UfmSourceHooks& hooks, int64_t us) const;

  config::Config cfg_;
  ingest::SystemClock clock_;
  std::unique_ptr<ingest::UfmClient> client_;
  std::unique_ptr<ingest::UfmClient> telemetry_;           // primary; null = no telemetry
  std::unique_ptr<ingest::UfmClient> telemetry_fallback_;  // secondary; may be null
  std::optional<std::string> cursor_;
  std::optional<std::string> alarm_cursor_;
  std::vector<ingest::UfmPortState> ufm_ports_;
};

}  // namespace ibw::daemon

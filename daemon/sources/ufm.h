// UfmEventsSource: UFM as a source of the daemon (`ufm:` in the configuration), its events,
// alarms and resources; UFM Telemetry and UFM's event.log are sources of their own
// (daemon/sources/ufm_telemetry.cpp, ufm_event_log.cpp). Every ufm.poll_interval:
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
//  - UFM's resources are polled on the same thread and client (daemon/sources/ufm_inventory.h):
//    GET /app/alarms after every events poll (ufm_alarm / ufm_alarm_cleared events, open set
//    in cursor "ufm_alarms"); GET /resources/ports and /resources/links before the first poll
//    and every kInventoryEvery-th (6) poll after it (UFM's view of each port in the store's
//    ufm_ports, high_ber events, the port index that turns labels in event text into
//    numbers, peers for events where the topology has none). A read after the first is
//    postponed to the next poll (up to kMaxPostponed times in a row) while a UFM Telemetry
//    scrape runs or is due before it could end (daemon/scrape_schedule.h). Free memory of
//    every malloc arena is given back before and after a read (release_free_memory). Its
//    "ufm ports polled" line gives elapsed_ms, postponed and trim_before_ms.
//  - Health is reported once per poll cycle as "ufm": the client's state after the cycle, but
//    at least degraded when any call of the cycle failed (the errors joined as detail), so a
//    failing endpoint is not hidden by a later call that succeeded; transitions (ok,
//    degraded, down) are logged with the last error.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "daemon/source.h"
#include "daemon/topology.h"
#include "ingest/clock.h"
#include "ingest/ufm/client.h"
#include "ingest/ufm/port_state.h"
#include "rules/runner.h"
#include "store/store.h"

namespace ibw::daemon {

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
// Null rules: none.
std::vector<ingest::Event> ufm_rule_events(const rules::RuleRunner* rules,
                                           const std::vector<ingest::Event>& events,
                                           int64_t now_us);

// Logs a UFM source's health when its state changed ("source health").
void report_ufm_health(SourceContext& ctx, const std::string& name, ingest::ServiceHealth h,
                       const std::string& detail);

class UfmEventsSource : public Source {
 public:
  // Reads the credentials (ufm_setup.h; throws naming the variable or file) and builds the
  // client. cfg.ufm must be set.
  explicit UfmEventsSource(const config::Config& cfg);
  ~UfmEventsSource() override;

  std::string name() const override { return "ufm"; }
  // What the store kept from the previous run: the events cursor ("ufm"), the open alarms
  // ("ufm_alarms") and UFM's port view (Store::ufm_ports()).
  void start(SourceContext& ctx) override;
  void run(SourceContext& ctx) override;

 private:
  config::Config cfg_;
  ingest::SystemClock clock_;
  std::unique_ptr<ingest::UfmClient> client_;
  std::optional<std::string> cursor_;
  std::optional<std::string> alarm_cursor_;
  std::vector<ingest::UfmPortState> ufm_ports_;
};

}  // namespace ibw::daemon

// Source: one input of `ibwarden run` (the OpenSM watcher, discovery, the MAD counter sweep,
// UFM's events, telemetry and event.log, the probes), and SourceContext: what a source sees
// of the daemon. Each source runs on a thread of its own: start() resumes it from the store
// (on the daemon's main thread), run() reads until the context stops running, stop() asks it
// to return early. Sources live in daemon/sources/.
//
// SourceContext::publish() is the one publish sequence every source uses: under the publish
// lock the source's reading updates the port table and fills a store batch; the batch's
// events go to the incident tracker (which adds an "incident" event when one opens), its
// events and counter deltas to the rules, the batch to the store queue; then, the lock
// released, the rules are evaluated and acting verdicts go to the action worker.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "daemon/action_worker.h"
#include "daemon/batch_queue.h"
#include "daemon/fabric_state.h"
#include "daemon/source_health.h"
#include "rules/runner.h"
#include "store/store.h"

namespace ibw::daemon {

// When publish() evaluates the rules after queueing the batch.
enum class Evaluate {
  always,            // new data of every port (a discovery, a sweep)
  with_events,       // only when the batch has events (the link check)
  with_rule_events,  // only when the rules kept some of the events they were fed (UFM)
  never,             // the rules are neither fed nor evaluated (UFM alarms)
};

struct Published {
  bool queued = true;                   // false: the queue closed (stopping); the source returns
  int64_t evaluate_us = 0;              // time spent evaluating the rules
  rules::EvaluateTimes evaluate_parts;  // of which in the rule runner
};

// What a SourceContext is built from: parts owned by the daemon's runtime.
struct SourceDeps {
  const config::Config* cfg = nullptr;
  FabricState* fabric = nullptr;
  BatchQueue* queue = nullptr;
  rules::RuleRunner* rules = nullptr;  // null without rules.file
  ActionWorker* worker = nullptr;      // with rules
  const std::atomic<bool>* running = nullptr;
  const std::atomic<bool>* acting = nullptr;             // false while an HA standby
  const std::unique_ptr<store::Store>* store = nullptr;  // reopened (fenced) at a takeover
  fabric::MadLocks* mad = nullptr;  // the process's MAD locks (fabric/smp_port.h)
};

class SourceContext {
 public:
  explicit SourceContext(SourceDeps deps) : d_(deps) {}

  const config::Config& cfg() const { return *d_.cfg; }
  FabricState& fabric() { return *d_.fabric; }
  const FabricState& fabric() const { return *d_.fabric; }
  const ingest::SystemClock& clock() const { return d_.fabric->clock; }
  std::shared_ptr<const Topology> topology() const { return d_.fabric->topology(); }
  rules::RuleRunner* rules() { return d_.rules; }
  // The process's MAD locks: every source that opens a umad port or registers SMP agents
  // passes these on (the action worker and the web API share the same instance).
  fabric::MadLocks& mad() const { return *d_.mad; }
  store::Store& store() { return **d_.store; }
  bool running() const { return *d_.running; }
  const std::atomic<bool>& running_flag() const { return *d_.running; }
  // False while an HA standby: discovery then only keeps the topology warm.
  bool acting() const { return *d_.acting; }
  // Sleeps up to d, waking early when stopping.
  void nap(std::chrono::microseconds d) const;

  // The publish sequence (see the top of this file). `update`, under the publish lock, applies
  // the reading to the port table and fills `batch` (it may be null when there is no port
  // table update). The rules get `rule_events` when given, else the batch's events, and the
  // batch's counter deltas. The batch is queued when it has rows. The rules are evaluated
  // (per `when`) over `topo` as it is after `update` (the link check patches it). Events
  // alone change only their own ports' windows: an evaluation they start (with_rule_events,
  // or with_events when every event is one the rules use) looks only at the links with an
  // end among those ports; every other port keeps its verdict until the next full evaluation
  // (the next sweep). At 400k ports a whole-fabric pass per UFM poll with a flap in it cost
  // ~150 ms of CPU, beside the scrape's own.
  Published publish(const std::shared_ptr<const Topology>& topo, store::WriteBatch batch,
                    const std::function<void(store::WriteBatch&)>& update,
                    Evaluate when = Evaluate::always,
                    const std::vector<ingest::Event>* rule_events = nullptr);
  // Queues a batch without the rules (cursors, events no rule uses), its events through the
  // incident tracker as publish() does; false when stopping.
  bool push(store::WriteBatch batch);
  // Evaluates the rules over `topo` and hands acting verdicts to the action worker; congestion
  // and report-only findings go to the fabric's CongestionBoard (its events to the store
  // queue) instead. Returns where the rule runner spent its time.
  // `ports` (sorted keys, CongestionBoard::port_key): only the links with an end among them, and
  // only their findings on the board are replaced; null: every link.
  rules::EvaluateTimes evaluate(const std::shared_ptr<const Topology>& topo,
                                const std::vector<uint64_t>* ports = nullptr);
  // Hands verdicts found elsewhere (cursed routes) to the action worker; false when its
  // queue is full.
  bool submit(ActionJob job) { return d_.worker && d_.worker->submit(std::move(job)); }
  // Records a source's health; true when its state changed (the caller logs transitions).
  bool report(SourceHealthEntry entry) { return d_.fabric->health.set(std::move(entry)); }

  // Called after each counter sweep with its duration (the web API's metrics); may be empty.
  std::function<void(double seconds, int64_t end_us)> on_sweep;

 private:
  void add_incidents(store::WriteBatch& batch);
  SourceDeps d_;
};

class Source {
 public:
  virtual ~Source() = default;
  // The source's name: its health entry ("opensm", "counters", "ufm", ...).
  virtual std::string name() const = 0;
  // Resumes from what the store kept (cursors); on the daemon's main thread, before run().
  virtual void start(SourceContext& ctx) { (void)ctx; }
  // The thread body: reads until ctx.running() turns false.
  virtual void run(SourceContext& ctx) = 0;
  // Asks run() to return before ctx.running() turns false; most sources need nothing.
  virtual void stop() {}
  // The source's last reported health; nullopt before its first report.
  virtual std::optional<SourceHealthEntry> health(const SourceContext& ctx) const;
};

// A source that is one function (discovery, the OpenSM log, UFM's event.log, the probes):
// its state lives in the function's locals. With `resumes`, start() reads the stored cursor
// named like the source (or `cursor`, when given), and the function gets it (none: nothing
// stored yet).
class FunctionSource final : public Source {
 public:
  using Run = void (*)(SourceContext& ctx, const std::optional<std::string>& cursor);
  FunctionSource(std::string name, Run body, bool resumes = false, std::string cursor = "")
      : name_(std::move(name)), run_(body), resumes_(resumes), cursor_name_(std::move(cursor)) {}
  std::string name() const override { return name_; }
  void start(SourceContext& ctx) override {
    if (resumes_) cursor_ = ctx.store().cursor(cursor_name_.empty() ? name_ : cursor_name_);
  }
  void run(SourceContext& ctx) override { run_(ctx, cursor_); }

 private:
  std::string name_;
  Run run_;
  bool resumes_;
  std::string cursor_name_;
  std::optional<std::string> cursor_;
};

// Correlates events with the topology (names, peers, cables); a null topology leaves them.
void enrich_all(const Topology* topo, std::vector<ingest::Event>& events);

// Replaces each port label the rules write ("0x" and 16 hex digits, '/', the port number;
// rules/eval_text.h) in `text` with the node's display name and port ("spine01/4") where
// the topology knows the node; others, and everything with a null topology, stay as they
// are. For verdict explanations (a peer's confirmation), which become decision reasons.
void name_port_labels(const Topology* topo, std::string& text);

}  // namespace ibw::daemon

// UfmExecutor: the PortExecutor (actions/remedy.h) of `actions.via: ufm`. Port actions go
// through UFM's REST API instead of SMPs, so UFM's view of the fabric stays consistent with
// what ibwarden did. Facts and confidence marks: ../shared/reference/ufm-api.md.
//  - disable / enable: POST /actions {action: "disable"|"enable", object_ids: [system GUID],
//    object_type: System, identifier: id, params: {port_id: "<guid>_<port>"}} -> 202 +
//    Location -> GET /jobs/<id> until it ends (UfmClient::run_action). 202 + Location and the
//    job object are [H]; the port disable/enable body is [M] (§3.6, §8.1). The job wait is
//    UfmExecutorOptions::job (the daemon: max(actions.timeout, 60 s)); "Completed" and "Completed
//    With Warnings" succeed, any other end (or no end in time) fails the action.
//  - isolation, for rules with `action: isolate` (ActionContext::isolate): PUT
//    /app/unhealthy_ports {ports: [name], ports_policy: UNHEALTHY, action: isolate} [H, §3.7].
//    The SM routes around the port; its PHY stays up. enable() of an isolated port sends
//    ports_policy HEALTHY (and also runs the enable job when the port is disabled too).
//  - read-back: GET /resources/ports/<name> before and after; UFM's logical_state and
//    physical_state map to IBA PortState / PortPhysicalState (Disabled -> 3), so the
//    Remediator's "read back Disabled" check works unchanged. An isolation reads back as the
//    port listed by GET /app/unhealthy_ports (by name, or system/node GUID and number), and
//    is reported with PortChange::isolated. The docs do not say UFM's views update in step
//    with a job or a PUT, so both are read again for up to readback_wait_us until they show
//    the change; a change that never shows fails the action (audited as failed).
//  - enable when GET /app/unhealthy_ports cannot be read (e.g. Monitoring-Only mode, where
//    the feature is unavailable): the port is taken as not isolated and the enable job runs.
//  - audit trail: every action, done or failed, is posted as a UFM external event (POST
//    /app/events/external_event, §3.8 [H fields, M semantics]): 553 (warning) for a disable or
//    isolation, 552 (notice) for an enable or de-isolation, 554 (critical) when the action
//    failed. The description names the port, the rule and the reason; object_name is the
//    port's system GUID with otype Switch or Computer. A failed post does not fail the action:
//    it is noted in PortChange::via (which the decision's evidence keeps).
// The port is named from the ActionContext (node GUID + port -> "<guid>_<port>"), so no LID or
// directed route is needed (needs_address() is false). Not thread-safe: one per thread.
#pragma once

#include <memory>
#include <string>

#include "actions/remedy.h"
#include "ingest/clock.h"
#include "ingest/ufm/client.h"

namespace ibw::actions {

struct UfmExecutorOptions {
  ingest::UfmClientOptions client;
  ingest::UfmJobWait job;
  int64_t readback_wait_us = 5'000'000;  // how long UFM's views may trail the action
  int64_t readback_poll_us = 250'000;
};

class UfmExecutor : public PortExecutor {
 public:
  explicit UfmExecutor(UfmExecutorOptions options);
  PortChange disable(const PortAddress& node, int port) override;
  PortChange enable(const PortAddress& node, int port) override;
  void set_context(const ActionContext& context) override { context_ = context; }
  bool needs_address() const override { return false; }
  PortReading read(const PortAddress& node, int port) override;

 private:
  struct Target;
  Target target(int port);
  PortReading read(Target& t);
  // read() until done(reading) or readback_wait_us passed; the last reading.
  template <typename Done>
  PortReading read_until(Target& t, Done done);
  bool listed_unhealthy(const Target& t);
  // POST /actions for the port ("disable" or "enable") and its job until done; the "UFM job
  // ID (outcome)" text, or a runtime_error when the job failed. *unsettled: UFM took the job
  // but was not seen to finish it (timed out, or its polling failed), so it may still be
  // applied: the port's state decides, and OutcomeUnknown when it does not show it done.
  std::string run_port_job(const Target& t, const char* action, bool* unsettled);
  void audit(PortChange& change, const Target& t, int event_id, const std::string& what);
  // One port change (disable, isolation, enable) of `port`: the port read before, then
  // act(target, change) (sets via, after, isolated; returns the audit's word, "disabled"),
  // set_reply = after and the audit event `event_id`. When any of it fails: the critical
  // audit event ("failed to <verb>") and the error again, a failed post noted on it.
  template <typename Act>
  PortChange change(int port, int event_id, const char* verb, Act act);

  ingest::SystemClock clock_;
  UfmExecutorOptions options_;
  std::unique_ptr<ingest::UfmClient> client_;
  ActionContext context_;
};

}  // namespace ibw::actions

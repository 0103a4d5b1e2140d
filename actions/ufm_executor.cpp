// Port actions through UFM; see ufm_executor.h.
#include "actions/ufm_executor.h"

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "ingest/ufm/description.h"
#include "ingest/ufm/resources.h"

namespace ibw::actions {
namespace ufm_executor_detail {

constexpr int kEventNotice = 552;    // enable, de-isolation
constexpr int kEventWarning = 553;   // disable, isolation
constexpr int kEventCritical = 554;  // the action failed

std::string hex_guid(uint64_t guid) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(guid));
  return buf;
}

}  // namespace ufm_executor_detail

// The port acted on, as UFM names it, and what UFM said of it last.
struct UfmExecutor::Target {
  std::string name;   // "<guid>_<port>"
  std::string label;  // "leaf001/3 (b83f..._3)" for messages
  uint64_t node_guid = 0;
  int port = 0;
  ingest::UfmPort record;  // from GET /resources/ports/<name>
};

UfmExecutor::UfmExecutor(UfmExecutorOptions options)
    : options_(std::move(options)),
      client_(std::make_unique<ingest::UfmClient>(options_.client, clock_)) {}

UfmExecutor::Target UfmExecutor::target(int port) {
  if (!context_.node_guid || context_.port != port)
    throw std::runtime_error("UFM executor: no port identity for port " + std::to_string(port) +
                             " (set_context was not called)");
  Target t;
  t.node_guid = context_.node_guid;
  t.port = port;
  t.name = ingest::ufm_port_name(t.node_guid, port);
  t.label =
      (context_.node.empty() ? "0x" + ufm_executor_detail::hex_guid(t.node_guid) : context_.node) +
      "/" + std::to_string(port) + " (UFM port " + t.name + ")";
  return t;
}

PortReading UfmExecutor::read(const PortAddress& /*node*/, int port) {
  Target t = target(port);  // the port named by set_context()
  return read(t);
}

PortReading UfmExecutor::read(Target& t) {
  ingest::UfmParsed<ingest::UfmPort> parsed;
  ingest::UfmResponse r = client_->get("/resources/ports/" + t.name, [&](const std::string& body) {
    parsed = ingest::parse_ufm_ports(body);
    return parsed.ok ? std::string() : parsed.error;
  });
  if (!r.ok) throw std::runtime_error("reading port " + t.label + " from UFM: " + r.error);
  const ingest::UfmPort* found = nullptr;
  for (const auto& p : parsed.items)
    if (p.name == t.name || (p.node_guid == t.node_guid && p.number == t.port)) found = &p;
  if (!found) throw std::runtime_error("UFM does not list port " + t.label);
  t.record = *found;
  PortReading reading;
  reading.link_state = static_cast<uint8_t>(ingest::ufm_logical_state(found->logical_state));
  reading.phys_state = static_cast<uint8_t>(ingest::ufm_physical_state(found->physical_state));
  return reading;
}

template <typename Done>
PortReading UfmExecutor::read_until(Target& t, Done done) {
  auto until =
      std::chrono::steady_clock::now() + std::chrono::microseconds(options_.readback_wait_us);
  for (;;) {
    PortReading r = read(t);
    if (done(r) || std::chrono::steady_clock::now() >= until) return r;
    std::this_thread::sleep_for(std::chrono::microseconds(options_.readback_poll_us));
  }
}

std::string UfmExecutor::run_port_job(const Target& t, const char* action, bool* unsettled) {
  using ingest::UfmJobOutcome;
  uint64_t system = t.record.system_guid ? t.record.system_guid : t.node_guid;
  auto result = client_->run_action(
      ingest::ufm_port_action(action, system, t.name, "ibwarden: " + context_.reason),
      options_.job);
  std::string via = "UFM job " + result.job_id + " (" +
                    std::string(ingest::job_outcome_name(result.outcome)) + ")";
  *unsettled = !result.job_id.empty() && (result.outcome == UfmJobOutcome::timed_out ||
                                          result.outcome == UfmJobOutcome::error);
  if (*unsettled) return via + ": " + result.error;
  if (result.outcome != UfmJobOutcome::completed &&
      result.outcome != UfmJobOutcome::completed_with_warnings)
    throw std::runtime_error("UFM " + std::string(action) + " of " + t.label + ": " + result.error);
  return via;
}

bool UfmExecutor::listed_unhealthy(const Target& t) {
  auto list = client_->unhealthy_ports();
  if (!list.ok())
    throw std::runtime_error("reading UFM's unhealthy ports: " +
                             (list.response.ok ? list.parsed.error : list.response.error));
  uint64_t system = t.record.system_guid ? t.record.system_guid : t.node_guid;
  for (const auto& u : list.parsed.items)
    if (u.port == t.name || ((u.guid == system || u.guid == t.node_guid) && u.number == t.port))
      return true;
  return false;
}

void UfmExecutor::audit(PortChange& change, const Target& t, int event_id,
                        const std::string& what) {
  std::string text = "ibwarden " + what + " " + t.label;
  if (!context_.rule.empty()) text += "; rule " + context_.rule;
  if (!context_.reason.empty()) text += ": " + context_.reason;
  if (text.size() > 1000) text.resize(1000);
  uint64_t system = t.record.system_guid ? t.record.system_guid : t.node_guid;
  bool is_switch = t.record.description.rfind("Switch", 0) == 0;
  ingest::UfmResponse r = client_->post_external_event(
      event_id, text, ufm_executor_detail::hex_guid(system), is_switch ? "Switch" : "Computer");
  if (!r.ok) change.via += "; UFM audit event not posted: " + r.error;
}

template <typename Act>
PortChange UfmExecutor::change(int port, int event_id, const char* verb, Act act) {
  Target t = target(port);
  PortChange c;
  try {
    c.before = read(t);
    const char* done = act(t, c);
    c.set_reply = c.after;
    audit(c, t, event_id, done);
  } catch (const OutcomeUnknown& e) {
    PortChange unknown;
    audit(unknown, t, ufm_executor_detail::kEventCritical,
          std::string("could not confirm the ") + verb + " of");
    throw OutcomeUnknown(e.what() + unknown.via);
  } catch (const std::exception& e) {
    PortChange failed;
    audit(failed, t, ufm_executor_detail::kEventCritical, std::string("failed to ") + verb);
    throw std::runtime_error(e.what() + failed.via);
  }
  return c;
}

PortChange UfmExecutor::disable(const PortAddress&, int port) {
  namespace d = ufm_executor_detail;
  if (context_.isolate)
    return change(port, d::kEventWarning, "isolate", [this](Target& t, PortChange& c) {
      ingest::UfmResponse r = client_->set_ports_health({t.name}, /*healthy=*/false);
      if (!r.ok) throw std::runtime_error("isolating " + t.label + " through UFM: " + r.error);
      c.via = "UFM isolation (PUT /app/unhealthy_ports UNHEALTHY)";
      auto until =
          std::chrono::steady_clock::now() + std::chrono::microseconds(options_.readback_wait_us);
      while (!(c.isolated = listed_unhealthy(t)) && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::microseconds(options_.readback_poll_us));
      c.after = read(t);
      if (!c.isolated)
        throw std::runtime_error("UFM accepted the isolation of " + t.label +
                                 " but does not list the port as unhealthy after " +
                                 std::to_string(options_.readback_wait_us / 1'000'000) + " s");
      return "isolated";
    });
  return change(port, d::kEventWarning, "disable", [this](Target& t, PortChange& c) {
    bool unsettled = false;
    c.via = run_port_job(t, "disable", &unsettled);
    c.after =
        read_until(t, [](const PortReading& r) { return r.phys_state == fabric::kPhysDisabled; });
    if (c.after.phys_state != fabric::kPhysDisabled && unsettled)
      throw OutcomeUnknown(c.via + "; UFM shows " + t.label + " as " +
                           std::string(fabric::phys_state_name(c.after.phys_state)) +
                           ": the job may still disable it");
    if (c.after.phys_state != fabric::kPhysDisabled)
      throw std::runtime_error(c.via + " completed but UFM still shows " + t.label + " as " +
                               std::string(fabric::phys_state_name(c.after.phys_state)) +
                               " after " + std::to_string(options_.readback_wait_us / 1'000'000) +
                               " s");
    return "disabled";
  });
}

PortChange UfmExecutor::enable(const PortAddress&, int port) {
  return change(
      port, ufm_executor_detail::kEventNotice, "enable", [this](Target& t, PortChange& c) {
        bool isolated = false;
        try {
          isolated = listed_unhealthy(t);
        } catch (const std::exception& e) {  // e.g. Monitoring-Only mode: the feature is off
          c.via =
              std::string("unhealthy ports not readable (") + e.what() + "): taken as not isolated";
        }
        if (isolated) {
          ingest::UfmResponse r = client_->set_ports_health({t.name}, /*healthy=*/true);
          if (!r.ok)
            throw std::runtime_error("de-isolating " + t.label + " through UFM: " + r.error);
          c.via = "UFM de-isolation (PUT /app/unhealthy_ports HEALTHY)";
        }
        bool unsettled = false;
        if (!isolated || c.before.phys_state == fabric::kPhysDisabled)
          c.via += (c.via.empty() ? "" : "; ") + run_port_job(t, "enable", &unsettled);
        c.after = read_until(
            t, [](const PortReading& r) { return r.phys_state != fabric::kPhysDisabled; });
        if (unsettled && c.after.phys_state == fabric::kPhysDisabled)
          throw OutcomeUnknown(c.via + "; UFM shows " + t.label +
                               " still Disabled: the job may still enable it");
        return isolated ? "de-isolated" : "enabled";
      });
}

}  // namespace ibw::actions

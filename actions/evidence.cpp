// Evidence of remediation records; see evidence.h.
#include "actions/evidence.h"

#include "store/remedy_json.h"

namespace ibw::actions {

nlohmann::json reading_json(const PortReading& r) {
  return {{"state", std::string(fabric::port_state_name(r.link_state))},
          {"phys_state", std::string(fabric::phys_state_name(r.phys_state))}};
}

nlohmann::json evidence_json(const Finding& f) {
  const rules::Verdict& v = f.verdict;
  const rules::Evidence& e = v.evidence;
  nlohmann::json j = {{"explanation", v.explanation},
                      {"rule_type", std::string(rules::rule_type_name(v.type))},
                      {"severity", std::string(ingest::severity_name(v.severity))},
                      {"confirmed", v.confirmed},
                      {"window_s", static_cast<double>(e.window_us) / 1e6}};
  if (!e.counter.empty())
    j.update({{"counter", std::string(e.counter)},
              {"total", e.total},
              {"max_delta", e.max_delta},
              {"max_rate_per_s", e.max_rate},
              {"samples", e.samples},
              {"at_least", e.at_least}});
  if (e.ber > 0) j["ber"] = e.ber;
  if (e.threshold > 0) j["threshold"] = e.threshold;
  if (e.flaps > 0 || v.type == rules::RuleType::link_flap) j["flaps"] = e.flaps;
  if (!e.event_times.empty()) {
    auto& times = j["link_down_times"] = nlohmann::json::array();
    for (int64_t t : e.event_times) times.push_back(store::iso_time(t));
  }
  if (!e.ber_events.empty()) {  // ufm_high_ber: UFM's verdicts that fired
    auto& events = j["ufm_events"] = nlohmann::json::array();
    for (const auto& b : e.ber_events)
      events.push_back({{"time", store::iso_time(b.time_us)},
                        {"source", std::string(ingest::source_name(b.source))},
                        {"severity", std::string(ingest::severity_name(b.severity))},
                        {"message", b.message}});
  }
  if (e.path) {  // cursed_path: the localizer's case and the guided probes' confirmation
    const rules::PathEvidence& p = *e.path;
    nlohmann::json c = {{"link", p.link},
                        {"score", p.score},
                        {"loss", p.loss},
                        {"bad_observations", p.bad_observations},
                        {"good_observations", p.good_observations},
                        {"group_size", p.group_size},
                        {"sample_bad_pairs", p.sample_bad_pairs}};
    if (p.dr_sent)
      c["dr_confirmation"] = {
          {"sent", p.dr_sent},
          {"lost", p.dr_lost},
          {"loss", static_cast<double>(p.dr_lost) / static_cast<double>(p.dr_sent)}};
    if (p.counters_known)
      c["counter_deltas"] = {{"PortRcvErrors", p.rcv_errors_delta},
                             {"SymbolErrorCounter", p.symbol_errors_delta}};
    j["cursed_path"] = std::move(c);
  }
  if (e.last_time_us) j["last_seen"] = store::iso_time(e.last_time_us);
  if (e.active_width || e.active_speed != fabric::Speed::unknown)
    j["active_rate"] = fabric::rate_name(e.active_width, e.active_speed);
  if (e.expected_width || e.expected_speed != fabric::Speed::unknown)
    j["expected_rate"] = fabric::rate_name(e.expected_width, e.expected_speed);
  if (f.counters.valid) {
    nlohmann::json c = {{"time", store::iso_time(f.counters.time_us)}};
    for (size_t i = 0; i < ingest::kCounterCount; ++i) {
      auto counter = static_cast<ingest::Counter>(i);
      if (f.counters.has(counter) && ingest::is_error_counter(counter) && f.counters.value[i])
        c[std::string(ingest::counter_name(counter))] = f.counters.value[i];
    }
    j["counters"] = std::move(c);
  }
  return j;
}

nlohmann::json guard_json(const Decision& g, bool overridden) {
  nlohmann::json j = {
      {"verdict", std::string(verdict_name(g.verdict))}, {"rule", g.rule}, {"reason", g.reason}};
  if (overridden) j["overridden"] = g.overridden;
  return j;
}

}  // namespace ibw::actions

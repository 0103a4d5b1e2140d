#include "rules/eval_cursed_path.h"

#include <cstdio>

namespace ibw::rules {
namespace cursed_detail {

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%%", x * 100);
  return buf;
}

bool counters_confirm(const PathEvidence& e) {
  return e.counters_known && (e.rcv_errors_delta > 0 || e.symbol_errors_delta > 0);
}

// Whether the rule's confirm requirement holds, and why not when it does not.
bool confirm_ok(const Rule& r, const PathEvidence& e, std::string* why) {
  bool dr = dr_confirms(e, r.min_loss), counters = counters_confirm(e);
  switch (r.confirm) {
    case Confirm::dr_probe:
      if (!dr) *why = e.dr_sent ? "guided DR probes did not show the loss" : "no DR probes yet";
      return dr;
    case Confirm::counters:
      if (!counters) *why = "no PortRcvErrors/SymbolErrorCounter rise on the receiving port";
      return counters;
    case Confirm::both:
      if (!dr || !counters)
        *why = !dr ? "guided DR probes did not show the loss"
                   : "no PortRcvErrors/SymbolErrorCounter rise on the receiving port";
      return dr && counters;
    default:
      return true;
  }
}

}  // namespace cursed_detail

bool dr_confirms(const PathEvidence& e, double min_loss) {
  return e.dr_sent > 0 && e.dr_lost > 0 &&
         static_cast<double>(e.dr_lost) >= min_loss * static_cast<double>(e.dr_sent);
}

std::vector<Verdict> evaluate_cursed_paths(const RuleSet& rules,
                                           const std::vector<PathFinding>& findings,
                                           int64_t now_us) {
  using namespace cursed_detail;
  std::vector<Verdict> out;
  for (const PathFinding& f : findings) {
    const PathEvidence& e = f.evidence;
    for (const Rule& r : rules.rules) {
      if (!r.enabled || r.type != RuleType::cursed_path) continue;
      if (e.loss < r.min_loss || e.bad_observations < static_cast<int64_t>(r.min_observations))
        continue;
      Verdict v;
      v.rule = r.name;
      v.type = r.type;
      v.action = r.action;
      v.severity = r.severity;
      v.node_guid = f.node_guid;
      v.port = f.port;
      std::string why;
      bool pinned = e.group_size <= 1 || dr_confirms(e, r.min_loss);
      v.confirmed = confirm_ok(r, e, &why) && pinned;
      if (!pinned && why.empty())
        why = "one of " + std::to_string(e.group_size) +
              " links the observations cannot tell apart; DR probes must pin it";
      v.explanation = "cursed path " + e.link + ": loses ~" + percent(e.loss) + " (" +
                      std::to_string(e.bad_observations) + " bad, " +
                      std::to_string(e.good_observations) + " good observations";
      if (e.dr_sent)
        v.explanation +=
            "; DR " + std::to_string(e.dr_lost) + "/" + std::to_string(e.dr_sent) + " lost";
      v.explanation += ")";
      if (!v.confirmed) v.explanation += "; not confirmed: " + why;
      v.evidence.threshold = r.min_loss;
      v.evidence.last_time_us = f.last_time_us ? f.last_time_us : now_us;
      v.evidence.path = e;
      out.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace ibw::rules

// Work orders and their advice; see order_text.h.
#include "actions/order_text.h"

namespace ibw::actions {

bool order_active(const std::string& status) {
  return status == "open" || status == "in_progress" || status == "reopened";
}

core::WorkOrder next_order(const std::optional<core::WorkOrder>& old, const LinkView& l,
                           int64_t now) {
  core::WorkOrder o;
  if (old) {
    o = *old;
    if (!order_active(o.status)) {
      o.status = "reopened";
      o.offences += 1;
      o.resolved_us = 0;
      o.needs_human = false;
      o.assignee.clear();
    }
  } else {
    o.link_key = l.link_key;
    o.a = l.a, o.b = l.b;
    o.status = "open";
    o.offences = 1;
    o.opened_us = now;
  }
  if (o.cable_id.empty()) o.cable_id = l.cable_id;
  o.updated_us = now;
  return o;
}

core::WorkOrder disabled_order(const std::optional<core::WorkOrder>& old, const LinkView& link,
                               int64_t now_us, const std::string& rule, const std::string& summary,
                               const std::string& evidence_json) {
  core::WorkOrder o = next_order(old, link, now_us);
  if (o.rule.empty()) o.rule = rule;
  o.port_disabled = true;
  o.summary = summary;
  o.advice = advice(rules::RuleType::symbol_errors, o.offences, link);
  if (o.evidence_json.empty()) o.evidence_json = evidence_json;
  return o;
}

core::WorkOrder rebase_order(core::WorkOrder order, const std::optional<core::WorkOrder>& before,
                             const std::optional<core::WorkOrder>& fresh) {
  if (!fresh) {
    order.id = 0, order.version = 0;
    return order;
  }
  order.id = fresh->id;
  order.version = fresh->version;
  order.opened_us = fresh->opened_us;
  if (!before || fresh->assignee != before->assignee) order.assignee = fresh->assignee;
  if (!before || fresh->note != before->note) order.note = fresh->note;
  return order;
}

std::string advice(rules::RuleType type, int offences, const LinkView& link) {
  if (link.a.port == 0) {  // a whole switch (incidents: it keeps rebooting or stays down)
    std::string where = end_text(link.a);
    if (!link.a.location.empty()) where += " (" + link.a.location + ")";
    return "check the switch " + where +
           ", not its cables: power supplies and fans, its log and firmware (crash or watchdog "
           "resets); every one of its links went down at once";
  }
  std::string cable = link.cable_id.empty() ? "the cable" : "cable " + link.cable_id;
  std::string where = end_text(link.a);
  if (!link.a.location.empty()) where += " (" + link.a.location + ")";
  std::string b = end_text(link.b);
  if (!b.empty())
    where += " and " + b + (link.b.location.empty() ? "" : " (" + link.b.location + ")");
  if (offences >= 3)
    return "repeat offender (" + std::to_string(offences) + " offences): replace " + cable +
           " and both transceivers, and inspect the ports at " + where +
           "; automation no longer disables this link";
  if (offences == 2)
    return "second offence after a repair: replace the transceivers (or " + cable + ") at " +
           where + "; cleaning and reseating did not hold";
  if (type == rules::RuleType::cursed_path)
    return "probes through " + cable + " at " + where +
           " were lost or slow while nothing flapped: clean both connector ends and reseat " +
           cable +
           ", check the switch firmware level, then re-enable the link (ibwarden "
           "enable) and watch the next probe rounds";
  if (type == rules::RuleType::link_degraded)
    return "reseat " + cable + " at " + where +
           "; if it still trains below its rate, replace the cable or its transceivers";
  return "clean both connector ends and reseat " + cable + " at " + where +
         ", then re-enable the link (ibwarden enable)";
}

}  // namespace ibw::actions

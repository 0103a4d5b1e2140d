// /metrics families read from the store: ports, links, disables and the guard's counts, pending
// port actions, the webhook outbox, open work orders, and the leases of every fabric in it.
#include <map>
#include <string>

#include "fabric/model.h"
#include "web/metrics.h"
#include "web/metrics_writer.h"

namespace ibw::web::metrics_detail {

void store_families(Writer& w, const MetricsSnapshot& m) {
  w.gauge("ibwarden_events_per_second", "Stored events with a time in the last 60 s, per second.",
          m.events_per_second);
  w.family("ibwarden_ports", "Ports by PortState.");
  for (const auto& [state, n] : m.ports_by_state)
    w.sample("ibwarden_ports", label("state", state), static_cast<double>(n));
  w.gauge("ibwarden_links", "Links with both ends known.", static_cast<double>(m.links));
  w.gauge("ibwarden_ports_down",
          "Links down: an end planned or with a known peer is not Active, not disabled by "
          "ibwarden.",
          static_cast<double>(m.ports_down));
  w.gauge("ibwarden_disabled_ports",
          "Ports ibwarden disabled (what the guard counts against actions.max_disabled_total).",
          static_cast<double>(m.disabled_ports));
  w.family("ibwarden_disabled_port_since_timestamp_seconds",
           "When ibwarden disabled the port (Unix seconds), one series per port it disabled.");
  for (const auto& d : m.disabled_since)
    w.sample("ibwarden_disabled_port_since_timestamp_seconds",
             label("node", d.node) + "," + label("node_guid", fabric::format_guid(d.node_guid)) +
                 "," + label("port", std::to_string(d.port)) + "," + label("cable", d.cable),
             static_cast<double>(d.since_us) / 1e6);
  w.gauge("ibwarden_guard_disables_last_hour",
          "Disables executed (or in flight) in the last 3600 s, as the guard counts them "
          "against actions.max_actions_per_hour.",
          static_cast<double>(m.disables_last_hour));
  w.gauge("ibwarden_port_actions_pending",
          "Port actions (disable, enable) whose outcome is not recorded yet: in flight, or "
          "unknown (the Set and its read-back went unanswered) until the port is read back. "
          "Each still counts against the guard's caps.",
          static_cast<double>(m.port_actions_pending));
  w.gauge("ibwarden_port_actions_pending_oldest_age_seconds",
          "Age of the oldest pending port action (0 when none is pending).",
          m.port_actions_oldest_age_seconds);
  w.gauge("ibwarden_webhook_outbox_pending_items",
          "Work-order changes queued for the webhook and not delivered yet.",
          static_cast<double>(m.outbox_pending));
  w.gauge("ibwarden_webhook_outbox_failing_items",
          "Undelivered outbox items whose delivery failed at least once.",
          static_cast<double>(m.outbox_failing));
  w.gauge("ibwarden_webhook_outbox_failed_attempts",
          "Failed delivery attempts of the undelivered outbox items, summed.",
          static_cast<double>(m.outbox_failed_attempts));
  w.gauge("ibwarden_webhook_outbox_oldest_pending_age_seconds",
          "Age of the oldest undelivered outbox item, from the time of its order change (0 "
          "when none is pending).",
          m.outbox_oldest_age_seconds);
  w.family("ibwarden_workorders_open", "Open, in_progress and reopened work orders by severity.");
  std::map<std::string, int64_t> by_severity = {
      {"info", 0}, {"warning", 0}, {"error", 0}, {"critical", 0}};  // present when none are open
  for (const auto& [severity, n] : m.open_orders_by_severity) by_severity[severity] += n;
  for (const auto& [severity, n] : by_severity)
    w.sample("ibwarden_workorders_open", label("severity", severity), static_cast<double>(n));
  w.gauge("ibwarden_workorders_needs_human", "Open work orders that need a human.",
          static_cast<double>(m.needs_human));
}

void fabric_families(Writer& w, const MetricsSnapshot& m) {
  w.family("ibwarden_ha_leader",
           "1 when this instance holds the fabric's lease and acts on it (without HA: 1 for its "
           "own fabric), one series per fabric in the store.");
  for (const auto& f : m.fabrics)
    w.own_labels("ibwarden_ha_leader", label("fabric", f.name), f.leads ? 1 : 0);
  w.family("ibwarden_fabric_lease_expires_seconds",
           "When the fabric's lease expires (Unix seconds, store server clock), one series per "
           "fabric with a lease, labelled with its holder.");
  for (const auto& f : m.fabrics)
    if (f.leader && f.expires_us > 0)
      w.own_labels("ibwarden_fabric_lease_expires_seconds",
                   label("fabric", f.name) + "," + label("leader", *f.leader),
                   static_cast<double>(f.expires_us) / 1e6);
}

}  // namespace ibw::web::metrics_detail

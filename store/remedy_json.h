// JSON shapes of the remediation records (core/remedy_records.h): the contract objects the CLI, the
// web API and the webhook outbox print. Times are ISO-8601 UTC strings with microseconds
// ("2026-11-22T02:12:57.123456Z", as the event JSON of `ibwarden events`), GUIDs "0x" and 16
// hex digits (fabric::format_guid), evidence the stored JSON object ({} when it is empty or
// not a JSON object).
//
// decision_json: {id, time, rule, node, node_guid, port, peer_node, peer_port, cable_id,
//   action, status, reason, evidence}; node_guid "" when 0.
// workorder_json: {id, cable_id, a, b, locations, status, rule, summary, offences, opened,
//   updated} and also {severity, advice, needs_human, port_disabled, assignee, note, resolved,
//   version, link_key, evidence, a_guid, b_guid, affected_hosts, affected_jobs}.
//   a and b are "NODE/PORT" (the 0xGUID when the name is empty; b "" when the peer is
//   unknown), locations the non-empty end locations (a first), resolved null when 0,
//   a_guid/b_guid "" when 0, affected_hosts (count) and affected_jobs ([{id, user, nodes}]) the
//   running Slurm jobs its link carries, both null when not known (no Slurm).
//   The outbox payload of an order is workorder_json(order).dump().
// slurm_json: the Slurm drains and resumes among a link's decisions (rule "slurm", see
//   actions/slurm_drain.h), oldest first: [{node, action drain|resume, status, at, reason}];
//   the web API and the CLI add it to an order as "slurm" (order_slurm_json reads them).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "store/record_json.h"  // iso_time
#include "store/records.h"
#include "store/roles.h"

namespace ibw::store {

nlohmann::json decision_json(const DecisionRecord& d);
nlohmann::json workorder_json(const WorkOrder& o);
nlohmann::json slurm_json(const std::vector<DecisionRecord>& decisions);
nlohmann::json order_slurm_json(RemedyStore& store, const WorkOrder& o);

}  // namespace ibw::store

// Records of remediation ("auto-disable of bad links"): decisions (what the rules or an
// operator asked for and what the guard and the fabric answered; a decision stored "pending"
// is an intent), repair work orders (one row per link, across its whole life), the webhook
// outbox, and the guard's state (ports it has disabled). Plain values: actions/ builds them,
// store/ keeps them (store/roles.h, RemedyStore), web/ and cli/ print them (their JSON shapes
// are in store/remedy_json.h).
//
// Work-order lifecycle (status):
//   open -> in_progress -> resolved (link re-enabled) -> verified (clean for verify_after)
//   resolved|verified -> reopened (bad again; offences + 1), then as open.
// A link has at most one order row (UNIQUE link_key); a new offence reopens it, so the
// repeat-offender count and the history stay on one order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ibw::core {

// One end of a link as a technician reads it.
struct LinkEnd {
  uint64_t guid = 0;
  std::string node;  // display name
  int port = 0;
  std::string location;  // from the plan; may be empty
};

struct DecisionRecord {
  int64_t id = 0;  // assigned by the store
  int64_t time_us = 0;
  std::string rule;  // rule name; "manual" for the CLI/API path
  uint64_t node_guid = 0;
  std::string node;
  int port = 0;
  uint64_t peer_guid = 0;
  std::string peer_node;
  int peer_port = 0;
  std::string cable_id;
  std::string action;         // disable | enable | work_order | none
  std::string status;         // executed | dry_run | refused | failed | pending (intent)
  std::string reason;         // one line: rule, numbers, guard verdict
  std::string evidence_json;  // JSON object (counter values, events with times, readback)
  std::string link_key;       // the link it is about (see link_key()); may be empty
  std::string dedup_key;      // unique when not empty: the same decision is stored once
};
// The rule of every Slurm drain and resume decision (actions/slurm_drain.h).
inline constexpr const char* kSlurmRule = "slurm";
// True for a port action's decision; false for a Slurm drain or resume, which finishes on
// its own and never counts as a port intent.
inline bool is_port_action(const DecisionRecord& d) {
  return d.rule != kSlurmRule;
}

struct WorkOrder {
  int64_t id = 0;        // assigned by the store on first insert
  std::string link_key;  // unique identity of the link
  std::string cable_id;
  LinkEnd a, b;
  std::string status = "open";  // open | in_progress | resolved | verified | reopened
  std::string rule;             // rule that opened (or last reopened) it
  std::string severity = "warning";
  std::string summary;  // one line for a board
  std::string advice;   // what the technician should do
  bool needs_human = false;
  bool port_disabled = false;  // ibwarden disabled the link for this order
  int offences = 1;            // times this link went bad (repeat-offender count)
  std::string evidence_json;   // JSON object
  // The running Slurm jobs its link carries (actions/affected_jobs.h: {"hosts", "unmapped",
  // "jobs"}), as of when it was opened or last refreshed; "" when not known (no Slurm).
  std::string affected_json;
  std::string assignee;
  std::string note;
  int64_t opened_us = 0;
  int64_t updated_us = 0;
  int64_t resolved_us = 0;  // 0 unless resolved/verified
  int64_t version = 0;      // bumped by the store on every change (outbox idempotency)
};

// A webhook delivery: one per order change. The idempotency key is "<order id>-v<version>".
struct OutboxItem {
  int64_t id = 0;
  int64_t workorder_id = 0;
  int64_t version = 0;
  std::string idempotency_key;
  std::string payload;  // the order's JSON at that version
  int attempts = 0;
  int64_t next_attempt_us = 0;
  int64_t delivered_us = 0;  // 0 = pending
  std::string last_error;
};

// A port ibwarden disabled (the guard's state survives restarts).
struct DisabledPort {
  uint64_t node_guid = 0;
  int port = 0;
  int64_t time_us = 0;
  int64_t decision_id = 0;  // 0 on write: the last decision of the same batch
  std::string link_key;
};

// "0x<guid>/<port>~0x<guid>/<port>" (GUIDs as 16 lower-case hex digits) with the smaller
// (guid, port) end first; one end only ("0x<guid>/<port>") when the peer is unknown (its GUID
// 0; if only guid_a is 0, the b end). Stable across re-discoveries and renames, and the same
// from either end of the link.
std::string link_key(uint64_t guid_a, int port_a, uint64_t guid_b, int port_b);

}  // namespace ibw::core

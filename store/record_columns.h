// One field list per stored record, shared by both backends (used only inside store/): the
// columns of its table in order, each named once beside the member it maps. The SQLite row
// code (store/sqlite_fields.h) and the PostgreSQL one (store/pg_fields.h) build their INSERT,
// UPDATE and SELECT column lists from it and bind and read through it, so the two backends
// cannot disagree on a column's name, order or type.
//
// A list is a struct with the record type and a static each(record, f) that calls
// f(name, member) per column in table order; `record` is the record or a const one, so the
// same list binds (const) and reads (non-const). Members are int64_t, int, uint64_t (GUIDs,
// stored as their int64 bit pattern), bool or std::string (PortHead, read only, a uint16_t);
// NullIfEmpty marks a text stored as NULL when empty (a unique key "" must not collide on), read
// back as "".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "store/records.h"

namespace ibw::store::columns {

template <class S>  // std::string or const std::string
struct NullIfEmpty {
  S& text;
};
template <class S>
NullIfEmpty(S&) -> NullIfEmpty<S>;

// Table decisions, without id.
struct Decisions {
  using Record = DecisionRecord;
  template <class R, class F>
  static void each(R& d, F&& f) {
    f("time_us", d.time_us);
    f("rule", d.rule);
    f("node_guid", d.node_guid);
    f("node", d.node);
    f("port", d.port);
    f("peer_guid", d.peer_guid);
    f("peer_node", d.peer_node);
    f("peer_port", d.peer_port);
    f("cable_id", d.cable_id);
    f("action", d.action);
    f("status", d.status);
    f("reason", d.reason);
    f("evidence", d.evidence_json);
    f("link_key", d.link_key);
    f("dedup_key", NullIfEmpty{d.dedup_key});
  }
};

// Table workorders, without id.
struct Workorders {
  using Record = WorkOrder;
  template <class R, class F>
  static void each(R& o, F&& f) {
    f("link_key", o.link_key);
    f("cable_id", o.cable_id);
    f("a_guid", o.a.guid);
    f("a_node", o.a.node);
    f("a_port", o.a.port);
    f("a_location", o.a.location);
    f("b_guid", o.b.guid);
    f("b_node", o.b.node);
    f("b_port", o.b.port);
    f("b_location", o.b.location);
    f("status", o.status);
    f("rule", o.rule);
    f("severity", o.severity);
    f("summary", o.summary);
    f("advice", o.advice);
    f("needs_human", o.needs_human);
    f("port_disabled", o.port_disabled);
    f("offences", o.offences);
    f("evidence", o.evidence_json);
    f("assignee", o.assignee);
    f("note", o.note);
    f("opened_us", o.opened_us);
    f("updated_us", o.updated_us);
    f("resolved_us", o.resolved_us);
    f("version", o.version);
    f("affected", NullIfEmpty{o.affected_json});
  }
};

// Work-order statuses WorkOrderQuery{.status = "active"} selects.
inline constexpr const char* kActiveStatuses = "('open', 'in_progress', 'reopened')";

// Table outbox, with id.
struct Outbox {
  using Record = OutboxItem;
  template <class R, class F>
  static void each(R& it, F&& f) {
    f("id", it.id);
    f("workorder_id", it.workorder_id);
    f("version", it.version);
    f("idempotency_key", it.idempotency_key);
    f("payload", it.payload);
    f("attempts", it.attempts);
    f("next_attempt_us", it.next_attempt_us);
    f("delivered_us", it.delivered_us);
    f("last_error", it.last_error);
  }
};

// Table ports, its first twelve columns: both backends store them alike (the counter state
// after them differs). Read only (store/row_read.h); lid is a uint16_t.
struct PortHead {
  using Record = PortRecord;
  template <class R, class F>
  static void each(R& p, F&& f) {
    f("node_guid", p.node_guid);
    f("port", p.port);
    f("node", p.node);
    f("lid", p.lid);
    f("peer_guid", p.peer_guid);
    f("peer_node", p.peer_node);
    f("peer_port", p.peer_port);
    f("cable_id", p.cable_id);
    f("state", p.state);
    f("phys_state", p.phys_state);
    f("width", p.width);
    f("speed", p.speed);
  }
};

// Table disabled_ports.
struct DisabledPorts {
  using Record = DisabledPort;
  template <class R, class F>
  static void each(R& d, F&& f) {
    f("node_guid", d.node_guid);
    f("port", d.port);
    f("time_us", d.time_us);
    f("decision_id", d.decision_id);
    f("link_key", d.link_key);
  }
};

// Table ufm_ports.
struct UfmPorts {
  using Record = ingest::UfmPortState;
  template <class R, class F>
  static void each(R& u, F&& f) {
    f("node_guid", u.node_guid);
    f("port", u.port);
    f("name", u.name);
    f("system_guid", u.system_guid);
    f("system_name", u.system_name);
    f("dname", u.dname);
    f("logical_state", u.logical_state);
    f("physical_state", u.physical_state);
    f("speed", u.speed);
    f("width", u.width);
    f("high_ber_severity", u.high_ber_severity);
    f("severity", u.severity);
    f("peer_guid", u.peer_guid);
    f("peer_port", u.peer_port);
    f("peer_node", u.peer_node);
    f("peer_from", u.peer_from);
    f("since_us", u.since_us);
  }
};

// The column names of a list, in order.
template <class List>
std::vector<std::string> names() {
  std::vector<std::string> out;
  typename List::Record r{};
  List::each(r, [&](const char* name, auto&&) { out.emplace_back(name); });
  return out;
}

template <class List>
int count() {
  return static_cast<int>(names<List>().size());
}

// "a, b, c" (with `prefix` before each name); list<List>(): the list's columns as an INSERT or
// SELECT names them.
std::string joined(const std::vector<std::string>& names, std::string_view prefix = "");
template <class List>
const std::string& list() {
  static const std::string s = joined(names<List>());
  return s;
}

// "?1, ?2, ..." or "$2, $3, ...": `count` parameters numbered from `first`, after `mark`.
std::string params(char mark, int first, int count);
// "a = ?1, b = ?2, ..." (mark '?', first 1) for the names.
std::string assignments(const std::vector<std::string>& names, char mark, int first);

// A work order's content: everything but id, version and updated_us (an upsert that changes
// none of it leaves the stored row alone).
bool same_content(const WorkOrder& x, const WorkOrder& y);

// Events store their source as its name and their severity as 0..3; these read them back
// (StoreError naming the event id when unknown).
ingest::EventSource parse_source(std::string_view s, int64_t id);
ingest::Severity parse_severity(int64_t v, int64_t id);

}  // namespace ibw::store::columns

// Readers of result rows, written once for both backends (used only inside store/): the
// SQLite store reads a Statement through sqlite_detail::SqliteRow (store/sqlite_fields.h), the
// PostgreSQL store a Result row through pg_detail::PgRow (store/pg_fields.h), and both read
// the same records with the same code, so the two cannot disagree on a column's place or type.
//
// A Row answers, for column c counted from its own first column: i64(c), i32(c), u64(c),
// boolean(c), str(c) (NULL reads as 0, false, ""), is_null(c), and values(c, what) /
// rates(c, what): a counter array in the backend's own text (SQLite JSON, PostgreSQL an array
// literal), `what` ("table.column") naming it in the error when it does not parse.
//
//   StoredEvent e = row_read::event(SqliteRow{stmt});
//   row_read::read_row<columns::Outbox>(PgRow{result, row}, /*first=*/0, item);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "store/record_columns.h"
#include "store/records.h"

namespace ibw::store::row_read {

template <class Row>
void read_value(const Row& r, int c, int64_t& v) {
  v = r.i64(c);
}
template <class Row>
void read_value(const Row& r, int c, int& v) {
  v = r.i32(c);
}
template <class Row>
void read_value(const Row& r, int c, uint64_t& v) {
  v = r.u64(c);
}
template <class Row>
void read_value(const Row& r, int c, uint16_t& v) {
  v = static_cast<uint16_t>(r.i64(c));
}
template <class Row>
void read_value(const Row& r, int c, bool& v) {
  v = r.boolean(c);
}
template <class Row>
void read_value(const Row& r, int c, std::string& v) {
  v = r.str(c);
}
template <class Row>
void read_value(const Row& r, int c, columns::NullIfEmpty<std::string> v) {
  v.text = r.str(c);
}

// Reads a field list's columns (store/record_columns.h) from columns first, first + 1, ...
template <class List, class Row>
void read_row(const Row& r, int first, typename List::Record& record) {
  List::each(record, [&](const char*, auto&& v) { read_value(r, first++, v); });
}

// The last four columns of a counter sample from column c: values (named `what`), valid,
// saturated, extended.
template <class Row>
void counter_tail(const Row& r, int c, ingest::CounterSample& s, std::string_view what) {
  s.value = r.values(c, what);
  s.valid = static_cast<uint32_t>(r.i64(c + 1));
  s.saturated = static_cast<uint32_t>(r.i64(c + 2));
  s.extended = r.boolean(c + 3);
}

// A legacy samples row (v1 table samples): node_guid, port, time_us, counter_values, valid,
// saturated, extended.
template <class Row>
ingest::CounterSample sample(const Row& r) {
  ingest::CounterSample s;
  s.node_guid = r.u64(0);
  s.port = r.i32(1);
  s.time_us = r.i64(2);
  counter_tail(r, 3, s, "samples.counter_values");
  return s;
}

// An events row: id, then time_us, source (its name), kind, severity (0..3), node_guid, port,
// lid, trap_number, message, node, peer_node, peer_port, peer_guid, cable_id, dedup_key.
template <class Row>
StoredEvent event(const Row& r) {
  StoredEvent out;
  out.id = r.i64(0);
  ingest::Event& e = out.event;
  e.time_us = r.i64(1);
  e.source = columns::parse_source(r.str(2), out.id);
  e.kind = r.str(3);
  e.severity = columns::parse_severity(r.i64(4), out.id);
  e.node_guid = r.u64(5);
  e.port = r.i32(6);
  e.lid = static_cast<uint16_t>(r.i64(7));
  e.trap_number = r.i32(8);
  e.message = r.str(9);
  e.node = r.str(10);
  e.peer_node = r.str(11);
  e.peer_port = r.i32(12);
  e.peer_guid = r.u64(13);
  e.cable_id = r.str(14);
  e.dedup_key = r.str(15);  // NULL reads as ""
  return out;
}

// The first twelve columns of a ports row (columns::PortHead).
template <class Row>
void port_head(const Row& r, PortRecord& p) {
  read_row<columns::PortHead>(r, 0, p);
}

// A port's counter columns as ports stored them in separate columns (SQLite still does,
// PostgreSQL before schema 2), from column c: counters_time_us, counters_node_guid,
// counters_port, counter_values, counters_valid, counters_saturated, counters_extended, rates,
// rates_valid, deltas, deltas_valid, deltas_at_least.
template <class Row>
void port_counters(const Row& r, int c, PortRecord& p) {
  p.counters.time_us = r.i64(c);
  p.counters.node_guid = r.u64(c + 1);
  p.counters.port = r.i32(c + 2);
  counter_tail(r, c + 3, p.counters, "ports.counter_values");
  p.rates = r.rates(c + 7, "ports.rates");
  p.rates_valid = static_cast<uint32_t>(r.i64(c + 8));
  p.deltas = r.values(c + 9, "ports.deltas");
  p.deltas_valid = static_cast<uint32_t>(r.i64(c + 10));
  p.deltas_at_least = static_cast<uint32_t>(r.i64(c + 11));
}

// A sample_aggregates row in sample_fold::kAggregateColumns' order.
template <class Row>
SampleAggregate aggregate(const Row& r) {
  SampleAggregate a;
  a.node_guid = r.u64(0);
  a.port = r.i32(1);
  a.bucket_us = r.i64(2);
  a.sample_count = r.i64(3);
  a.first_time_us = r.i64(4);
  a.last.node_guid = a.node_guid;
  a.last.port = a.port;
  a.last.time_us = r.i64(5);
  counter_tail(r, 6, a.last, "sample_aggregates.last_values");
  a.max_delta = r.values(10, "sample_aggregates.max_delta");
  a.delta_valid = static_cast<uint32_t>(r.i64(11));
  return a;
}

}  // namespace ibw::store::row_read

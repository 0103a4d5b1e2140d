// Table port_state of the PostgreSQL store (store/port_state.h): one row (fabric, part, data)
// per partition. A write reads the rows it needs FOR UPDATE, creating first those that are
// missing (the first writes of a fabric; then it reads them again): two writers of one fabric
// (the daemon, a CLI command) merge one after the other, neither losing the other's states.
// Once every partition has its row, which a store reaches with its first scrapes, a write
// makes no INSERT (a round trip and 256 conflict checks a sweep). The blobs travel in binary
// both ways (no hex text of 50 MB per scrape).
#include "store/pg_binary.h"
#include "store/pg_db.h"
#include "store/port_state.h"

namespace ibw::store::port_state {

namespace pg_port_state_detail {

std::string parts_array(const std::vector<int>& parts) {
  pg_detail::ArrayBinary a(pg_detail::ElemType::int4);
  for (const int p : parts) a.i32(p);
  return a.take();
}

// An int4 column of a binary-format result.
int be32(std::string_view v) {
  if (v.size() != 4) throw StoreError("table port_state: bad partition number in a result");
  uint32_t x = 0;
  for (const char c : v) x = (x << 8) | static_cast<uint8_t>(c);
  return static_cast<int>(x);
}

}  // namespace pg_port_state_detail

using namespace pg_port_state_detail;

void write(pg_detail::Db& db, const std::string& fabric, Updates& u) {
  if (u.empty()) return;
  const std::vector<int> wanted = u.parts();
  const std::string parts = parts_array(wanted);
  auto read_locked = [&] {
    return db.exec(
        "SELECT part, data FROM port_state WHERE fabric = $1 AND part = ANY($2::integer[]) "
        "ORDER BY part FOR UPDATE",
        pg_detail::Params().text(fabric).binary(parts), /*binary_result=*/true);
  };
  pg_detail::Result r = read_locked();
  if (static_cast<size_t>(r.rows()) < wanted.size()) {  // partitions without a row yet
    db.exec(
        "INSERT INTO port_state (fabric, part, data) SELECT $1, t.part, '\\x01'::bytea FROM "
        "unnest($2::integer[]) AS t(part) ON CONFLICT (fabric, part) DO NOTHING",
        pg_detail::Params().text(fabric).binary(parts));
    r = read_locked();
  }
  pg_detail::ArrayBinary part_col(pg_detail::ElemType::int4), data_col(pg_detail::ElemType::bytea);
  size_t stored = 0;
  for (int i = 0; i < r.rows(); ++i) stored += r.text(i, 1).size();
  data_col.reserve(stored + u.bytes() + 64 * static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    const int part = be32(r.text(i, 0));
    part_col.i32(part);
    data_col.bytes_with([&](std::string& buf) { u.merge_into(part, r.text(i, 1), buf); });
  }
  db.exec(
      "UPDATE port_state p SET data = t.data FROM unnest($2::integer[], $3::bytea[]) AS "
      "t(part, data) WHERE p.fabric = $1 AND p.part = t.part",
      pg_detail::Params().text(fabric).binary(part_col.take()).binary(data_col.take()));
}

void fill(pg_detail::Db& db, const std::string& fabric, std::vector<PortRecord>& records) {
  fill(records,
       [&](const std::vector<int>& parts, const std::function<void(int, std::string_view)>& blob) {
         const pg_detail::Result r = db.exec(
             "SELECT part, data FROM port_state WHERE fabric = $1 AND part = ANY($2::integer[])",
             pg_detail::Params().text(fabric).binary(parts_array(parts)), /*binary_result=*/true);
         for (int i = 0; i < r.rows(); ++i) blob(be32(r.text(i, 0)), r.text(i, 1));
       });
}

}  // namespace ibw::store::port_state

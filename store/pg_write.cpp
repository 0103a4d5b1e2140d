// PgStore: write() and the core rows of a batch. (Skeleton: filled in next.)
#include "store/pg_store.h"

namespace ibw::store {

namespace pg_write_detail {
[[noreturn]] void not_yet(const char* what) {
  throw StoreError(std::string("postgres store: ") + what + ": not yet");
}
}  // namespace pg_write_detail

WriteResult PgStore::write(const WriteBatch& /*batch*/) {
  pg_write_detail::not_yet("write");
}
void PgStore::write_rows(const WriteBatch& /*batch*/, WriteResult& /*result*/) {
  pg_write_detail::not_yet("write_rows");
}
std::vector<StoredEvent> PgStore::events(const EventQuery& /*q*/) {
  pg_write_detail::not_yet("events");
}
std::vector<PortRecord> PgStore::ports(const std::string& /*node_filter*/) {
  pg_write_detail::not_yet("ports");
}
std::vector<ingest::UfmPortState> PgStore::ufm_ports() {
  pg_write_detail::not_yet("ufm_ports");
}
std::optional<std::string> PgStore::cursor(const std::string& /*source*/) {
  pg_write_detail::not_yet("cursor");
}
std::vector<ingest::CounterSample> PgStore::samples(uint64_t /*node_guid*/, int /*port*/,
                                                    int64_t /*since_us*/) {
  pg_write_detail::not_yet("samples");
}
size_t PgStore::compact(int64_t /*now_us*/, const Retention& /*retention*/) {
  pg_write_detail::not_yet("compact");
}
size_t PgStore::fold_samples(int64_t /*cutoff_us*/) {
  pg_write_detail::not_yet("fold_samples");
}
std::vector<SampleAggregate> PgStore::aggregates(uint64_t /*node_guid*/, int /*port*/,
                                                 int64_t /*since_us*/) {
  pg_write_detail::not_yet("aggregates");
}

}  // namespace ibw::store

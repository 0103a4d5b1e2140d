#include "ingest/opensm_ingest.h"

#include <charconv>
#include <string>

namespace ibw::ingest {
namespace osm_ingest_detail {

// "opensm:" + after.serialize() for the lines of one poll: the device, inode and fingerprint
// are those of the previous line but after a rotation, so only the offset is formatted anew.
class DedupKeys {
 public:
  std::string operator()(const TailCursor& after) {
    if (after.dev != file_.dev || after.inode != file_.inode ||
        after.fingerprint != file_.fingerprint || head_.empty()) {
      file_ = after;
      head_ = "opensm:" + std::to_string(after.dev) + ":" + std::to_string(after.inode) + ":";
      tail_ = ":" + std::to_string(after.fingerprint);
    }
    char offset[24];
    char* end = std::to_chars(offset, offset + sizeof offset, after.offset).ptr;
    std::string key;
    key.reserve(head_.size() + static_cast<size_t>(end - offset) + tail_.size());
    key.append(head_).append(offset, end).append(tail_);
    return key;
  }

 private:
  TailCursor file_;
  std::string head_, tail_;
};

void add_line(std::string_view line, const TailCursor& after, const OsmLogContext& ctx,
              OsmTrapRule rule, DedupKeys& keys, OsmBatch& batch) {
  ++batch.lines;
  batch.cursor = after;
  if (!opensm_line_of_interest(line)) return;
  auto rec = parse_opensm_line_view(line, ctx);
  if (!rec) return;
  bool link_change = (rec->kind == OsmRecordKind::trap && rec->trap_number == 128) ||
                     (rec->kind == OsmRecordKind::notice &&
                      rec->text.find("Link state change") != std::string_view::npos);
  if (link_change && rec->lid) batch.link_change_lids.insert(rec->lid);
  if (link_change || rec->kind == OsmRecordKind::subnet_up) batch.rediscover = true;
  auto ev = to_event(*rec, rule);
  if (!ev) return;
  ev->dedup_key = keys(after);
  batch.events.push_back(std::move(*ev));
}

}  // namespace osm_ingest_detail

void add_opensm_line(std::string_view line, const TailCursor& after, const OsmLogContext& ctx,
                     OsmTrapRule rule, OsmBatch& batch) {
  osm_ingest_detail::DedupKeys keys;
  osm_ingest_detail::add_line(line, after, ctx, rule, keys, batch);
}

OsmBatch read_opensm_log(FileTailer& tailer, const OsmLogContext& ctx, size_t max_lines,
                         OsmTrapRule rule) {
  OsmBatch batch;
  osm_ingest_detail::DedupKeys keys;
  tailer.poll_each(max_lines, [&](std::string_view line, const TailCursor& after) {
    osm_ingest_detail::add_line(line, after, ctx, rule, keys, batch);
  });
  return batch;
}

}  // namespace ibw::ingest

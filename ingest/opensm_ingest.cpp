#include "ingest/opensm_ingest.h"

#include <charconv>
#include <cstring>
#include <string>

#include "ingest/line_scan.h"

namespace ibw::ingest {
namespace osm_ingest_detail {

// "opensm:" + after.serialize() for the lines of one poll: the device, inode and fingerprint
// are those of the previous line but after a rotation, so only the offset is formatted anew.
class DedupKeys {
 public:
  void assign(const TailCursor& after, std::string& key) {
    if (after.dev != file_.dev || after.inode != file_.inode ||
        after.fingerprint != file_.fingerprint || head_.empty()) {
      file_ = after;
      head_ = "opensm:" + std::to_string(after.dev) + ":" + std::to_string(after.inode) + ":";
      tail_ = ":" + std::to_string(after.fingerprint);
    }
    char text[128];  // head_ and tail_ hold at most 3 numbers of 20 digits
    std::memcpy(text, head_.data(), head_.size());
    char* end = std::to_chars(text + head_.size(), text + sizeof text, after.offset).ptr;
    std::memcpy(end, tail_.data(), tail_.size());
    key = std::string(text, static_cast<size_t>(end - text) + tail_.size());
  }

 private:
  TailCursor file_;
  std::string head_, tail_;
};

// One line the prefilter kept (or any line, for add_opensm_line): parse, rediscovery, event.
void add_kept_line(std::string_view line, const TailCursor& after, const OsmLogContext& ctx,
                   OsmTrapRule rule, DedupKeys& keys, OsmBatch& batch) {
  auto rec = parse_opensm_line_view(line, ctx);
  if (!rec) return;
  bool link_change = (rec->kind == OsmRecordKind::trap && rec->trap_number == 128) ||
                     (rec->kind == OsmRecordKind::notice &&
                      rec->text.find("Link state change") != std::string_view::npos);
  if (link_change && rec->lid) batch.link_change_lids.insert(rec->lid);
  if (link_change || rec->kind == OsmRecordKind::subnet_up) batch.rediscover = true;
  Event& ev = batch.events.emplace_back();  // filled in place: no Event is moved
  if (!to_event(*rec, rule, ev)) {
    batch.events.pop_back();
    return;
  }
  keys.assign(after, ev.dedup_key);
}

// The lines of one run FileTailer::poll_runs delivers, split and counted here in one pass:
// the prefilter on each (up to the poll's budget), the rest on those it keeps. Only kept lines
// get their cursor.
class ChunkReader {
 public:
  ChunkReader(const OsmLogContext& ctx, OsmTrapRule rule, size_t max_lines, OsmBatch& batch)
      : ctx_(ctx), rule_(rule), max_lines_(max_lines), batch_(batch) {}

  FileTailer::Taken operator()(std::string_view text, size_t budget, const TailCursor& start) {
    const char* const base = text.data();
    const char* const end = base + text.size();
    kept_.clear();
    size_t lines = 0;
    const char* p = base;
    while (p < end && lines < budget) {
      const char* nl = find_byte(p, end, '\n');
      const char* line_end = nl ? nl : end;
      if (opensm_line_of_interest(std::string_view(p, static_cast<size_t>(line_end - p))))
        kept_.push_back({static_cast<size_t>(p - base), static_cast<size_t>(line_end - p)});
      ++lines;
      p = nl ? nl + 1 : end;
    }
    text = text.substr(0, static_cast<size_t>(p - base));
    const size_t left = max_lines_ > batch_.lines ? max_lines_ - batch_.lines : lines;
    batch_.lines += lines;
    // Room for every kept line. A large run means a backlog (more runs follow in this poll):
    // room for the rest of the poll at this run's rate, so that the vector of a big poll is
    // allocated once rather than regrown (each regrowth of megabytes is fresh pages to fault).
    auto& events = batch_.events;
    size_t want = events.size() + kept_.size();
    if (text.size() >= kBacklogRun && lines > 0)
      want = events.size() + (kept_.size() * left + lines - 1) / lines;
    if (events.capacity() < events.size() + kept_.size())
      events.reserve(std::max(want, 2 * events.capacity()));
    TailCursor after = start;
    for (const auto& [at, len] : kept_) {
      after.offset = start.offset + at + len + (at + len < text.size() ? 1 : 0);
      add_kept_line(text.substr(at, len), after, ctx_, rule_, keys_, batch_);
    }
    after.offset = start.offset + text.size();
    batch_.cursor = after;
    return {text.size(), lines};
  }

 private:
  static constexpr size_t kBacklogRun = 128 * 1024;  // bytes; FileTailer reads 256 KiB

  const OsmLogContext& ctx_;
  OsmTrapRule rule_;
  size_t max_lines_;
  OsmBatch& batch_;
  DedupKeys keys_;
  std::vector<std::pair<size_t, size_t>> kept_;  // (offset in the run, length) of kept lines
};

}  // namespace osm_ingest_detail

void add_opensm_line(std::string_view line, const TailCursor& after, const OsmLogContext& ctx,
                     OsmTrapRule rule, OsmBatch& batch) {
  ++batch.lines;
  batch.cursor = after;
  if (!opensm_line_of_interest(line)) return;
  osm_ingest_detail::DedupKeys keys;
  osm_ingest_detail::add_kept_line(line, after, ctx, rule, keys, batch);
}

OsmBatch read_opensm_log(FileTailer& tailer, const OsmLogContext& ctx, size_t max_lines,
                         OsmTrapRule rule) {
  OsmBatch batch;
  osm_ingest_detail::ChunkReader reader(ctx, rule, max_lines, batch);
  tailer.poll_runs(max_lines,
                   [&reader](std::string_view text, size_t budget, const TailCursor& start) {
                     return reader(text, budget, start);
                   });
  return batch;
}

}  // namespace ibw::ingest

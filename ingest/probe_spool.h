// ProbeSpool: external route observations dropped as files into a spool directory (results of
// ib_write_bw/lat matrices, nccl-tests, burn-in; JSONL or CSV with a header, as
// ingest/observation.h reads them). Each poll() takes the files whose names end in .jsonl,
// .json, .ndjson or .csv and have not changed for `settle` (a writer still filling a file is
// left for the next poll; write to a temporary name and rename() to be safe), parses each
// whole, and moves it to done/ when every line is valid, or to failed/ with a NAME.errors file
// listing every bad line (file:line: field: message) when not: nothing of a bad file is kept,
// and no file is read twice. Hidden files and other names are left alone.
//
// Only what its writer meant is read (issue 31): a file is opened with O_NOFOLLOW and checked
// on its descriptor: a regular file with one link (no symlink, hard link, device or FIFO),
// owned by this process's user or the spool directory's owner, at most `max_bytes` (checked
// before any byte is read, and read with that cap). A refused file is moved to failed/ unread,
// with NAME.errors saying why. Error reports never quote more than a short masked excerpt of a
// line (core::masked_excerpt), and at most kMaxErrorLines lines are listed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ingest/observation.h"

namespace ibw::ingest {

struct SpoolResult {
  std::vector<Observation> observations;  // of every accepted file, in name order
  std::vector<std::string> accepted;      // file names moved to done/
  std::vector<std::string> rejected;      // "name: first error (N errors)" moved to failed/
  std::string error;                      // the directory itself cannot be read; "" when ok
  // Files refused by reason, for /metrics: spool_not_regular (symlink, hard link, device),
  // spool_owner, spool_too_big, spool_bad_lines.
  std::map<std::string, uint64_t> refused;
};

class ProbeSpool {
 public:
  // Creates dir, dir/done and dir/failed when missing (throws std::runtime_error naming the
  // directory when it cannot).
  static constexpr size_t kDefaultMaxBytes = size_t{4} << 20;  // probes.spool_max_bytes
  static constexpr size_t kMaxErrorLines = 100;
  explicit ProbeSpool(std::string dir, int64_t settle_us = 1'000'000,
                      size_t max_bytes = kDefaultMaxBytes);
  // now_us: the caller's clock, compared with the files' mtimes.
  SpoolResult poll(int64_t now_us);
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  int64_t settle_us_;
  size_t max_bytes_;
};

}  // namespace ibw::ingest

// ProbeSpool: external route observations dropped as files into a spool directory (results of
// ib_write_bw/lat matrices, nccl-tests, burn-in; JSONL or CSV with a header, as
// ingest/observation.h reads them). Each poll() takes the regular files whose names end in
// .jsonl, .json, .ndjson or .csv and have not changed for `settle` (a writer still filling a
// file is left for the next poll; write to a temporary name and rename() to be safe), parses
// each whole, and moves it to done/ when every line is valid, or to failed/ with a
// NAME.errors file listing every bad line (file:line: field: message) when not: nothing of a
// bad file is kept, and no file is read twice. Hidden files and other names are left alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ingest/observation.h"

namespace ibw::ingest {

struct SpoolResult {
  std::vector<Observation> observations;  // of every accepted file, in name order
  std::vector<std::string> accepted;      // file names moved to done/
  std::vector<std::string> rejected;      // "name: first error (N errors)" moved to failed/
  std::string error;                      // the directory itself cannot be read; "" when ok
};

class ProbeSpool {
 public:
  // Creates dir, dir/done and dir/failed when missing (throws std::runtime_error naming the
  // directory when it cannot).
  explicit ProbeSpool(std::string dir, int64_t settle_us = 1'000'000);
  // now_us: the caller's clock, compared with the files' mtimes.
  SpoolResult poll(int64_t now_us);
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  int64_t settle_us_;
};

}  // namespace ibw::ingest

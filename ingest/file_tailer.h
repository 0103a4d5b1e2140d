// FileTailer: follows a growing log file the way `tail -F` does, but loses and repeats
// nothing across rotation and restarts:
//  - it tracks the file by (device, inode); after a rename rotation it first drains the rest
//    of the old file (still open) and then continues with the new file from offset 0;
//  - copytruncate (the file shrinks below the read offset) restarts at offset 0;
//  - a partial last line is held back until its newline arrives (a partial line left in a
//    rotated-away file is delivered when the tailer moves on);
//  - its position is a TailCursor the caller persists with the lines it has stored. Given a
//    cursor on restart it resumes exactly there, also when the file was rotated meanwhile
//    (it looks for the old inode among the rotated siblings `<path>.1`, `<path>-*`, ...).
// Pull-based and single-threaded: the owner calls poll() (e.g. every 100 ms or on inotify).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibw::ingest {

struct TailCursor {
  uint64_t dev = 0;
  uint64_t inode = 0;
  uint64_t offset = 0;       // byte offset after the last delivered line
  uint64_t fingerprint = 0;  // hash of the file's first line, to detect inode reuse

  std::string serialize() const;  // "dev:inode:offset:fingerprint"
  static std::optional<TailCursor> parse(const std::string& text);
};

struct TailLine {
  std::string text;   // without the newline
  TailCursor after;   // cursor positioned just after this line (store it with the line)
};

class FileTailer {
 public:
  // start_at_end: with no cursor, begin at the current end of file (daemon default) rather
  // than at offset 0.
  FileTailer(std::string path, std::optional<TailCursor> cursor, bool start_at_end = false);
  ~FileTailer();
  FileTailer(const FileTailer&) = delete;
  FileTailer& operator=(const FileTailer&) = delete;

  // Returns the complete lines that appeared since the last call (at most max_lines).
  std::vector<TailLine> poll(size_t max_lines = 100000);
  const std::string& path() const { return path_; }
  // Last error (file missing, unreadable); empty when healthy.
  const std::string& error() const { return error_; }

 private:
  struct Impl;
  std::string path_;
  std::string error_;
  Impl* impl_;
};

}  // namespace ibw::ingest

// FileTailer: follows a growing log file the way `tail -F` does, but loses and repeats
// nothing across rotation and restarts:
//  - it tracks the file by (device, inode); after a rename rotation it first drains the rest
//    of the old file (still open) and then continues with the new file from offset 0. It moves
//    on only once the new file has data: until then the writer may still be appending to the
//    old one (until it reopens its log). Files rotated away in between (two rotations
//    within one poll, or while stopped) are read too, oldest first;
//  - copytruncate (the file shrinks below the read offset, or its first line changes) restarts
//    at offset 0, after reading what was not yet delivered from the copy (`<path>.1` ...) when
//    a sibling starts with the same first line;
//  - a partial last line is held back until its newline arrives (a partial line left in a
//    rotated-away or truncated file is delivered when the tailer moves on);
//  - its position is a TailCursor the caller persists with the lines it has stored. Given a
//    cursor on restart it resumes exactly there, also when the file was rotated meanwhile
//    (it looks for the old inode among the rotated siblings `<path>.1`, `<path>.0`,
//    `<path>-*`, `<path>.*`; compressed ones cannot be read). When the cursor's file is gone,
//    it starts the current file from offset 0.
// The constructor takes its position at once (opens the file or the cursor's file); a file
// missing then is waited for, and read from offset 0 once it appears (it was created after the
// tailer started, so all of it is new). Lines are returned byte-exact, without the "\n".
// Plain POSIX (open/fstat/pread), no threads and no inotify: the owner calls poll() (e.g.
// every 100 ms). Not thread-safe.
// Limits: truncation is seen from the file's size and first line, so a copytruncate that
// happens before anything of the file was read (since the start or the previous truncation)
// looks like appends, and that copy is not read; in-place truncation without a copy (OpenSM's
// own log_max_size) loses what was written after the last poll. Rename rotation has neither
// problem: for OpenSM use logrotate `create` with `postrotate kill -USR1` (OpenSM reopens its
// log on SIGUSR1).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibw::ingest {

struct TailCursor {
  uint64_t dev = 0;
  uint64_t inode = 0;
  uint64_t offset = 0;       // byte offset after the last delivered line
  uint64_t fingerprint = 0;  // hash of the file's first line (first 4 KiB), to detect inode
                             // reuse and truncation; 0 = unknown

  std::string serialize() const;  // "dev:inode:offset:fingerprint", decimal
  static std::optional<TailCursor> parse(const std::string& text);  // nullopt when malformed
  bool operator==(const TailCursor&) const = default;
};

struct TailLine {
  std::string text;  // without the newline
  TailCursor after;  // cursor positioned just after this line (store it with the line)
};

class FileTailer {
 public:
  // start_at_end: with no cursor, begin at the end of the file's last complete line (daemon
  // default) rather than at offset 0.
  FileTailer(std::string path, std::optional<TailCursor> cursor, bool start_at_end = false);
  ~FileTailer();
  FileTailer(const FileTailer&) = delete;
  FileTailer& operator=(const FileTailer&) = delete;

  // Returns the complete lines that appeared since the last call (at most max_lines; call
  // again when it returns max_lines).
  std::vector<TailLine> poll(size_t max_lines = 100000);
  // The same lines as poll(), in the same order and with the same cursors, without copying
  // them: calls visit(text, after) for each. text points into the tailer's read buffer and is
  // valid only during the call. Returns the number of lines visited.
  using LineVisitor = std::function<void(std::string_view text, const TailCursor& after)>;
  size_t poll_each(size_t max_lines, const LineVisitor& visit);
  // The same lines again, in runs as they sit in the read buffer, for callers that scan many
  // lines at once: calls visit(text, lines, start) where text is `lines` consecutive lines,
  // each with its "\n" (except a partial last line delivered when the tailer moves on from a
  // rotated or truncated file: it comes alone, lines = 1, without "\n"), and start is the
  // cursor before the first of them (after each line: start.offset + its end, with the
  // "\n"). text is valid only during the call. Returns the number of lines visited.
  using ChunkVisitor =
      std::function<void(std::string_view text, size_t lines, const TailCursor& start)>;
  size_t poll_chunks(size_t max_lines, const ChunkVisitor& visit);
  // The same runs for callers that split the lines themselves, so that the bytes are scanned
  // once (the tailer does not count them): calls take(text, budget, start) where text is every
  // complete line read and not yet delivered, each with its "\n" (or the partial last line of
  // a file the tailer moves on from, alone, without "\n"), budget (> 0) is how many lines are
  // still wanted, and start is the cursor before text. take consumes the first
  // min(budget, lines in text) lines (the partial line whole) and returns how many bytes (up to
  // and with the last consumed line's "\n") and lines that was. Returns the lines consumed.
  struct Taken {
    size_t bytes = 0;
    size_t lines = 0;
  };
  using RunTaker =
      std::function<Taken(std::string_view text, size_t budget, const TailCursor& start)>;
  size_t poll_runs(size_t max_lines, const RunTaker& take);
  const std::string& path() const { return path_; }
  // Where the next delivered line starts (after the constructor: the resume or start
  // position); nullopt while no file has been opened.
  std::optional<TailCursor> position() const;
  // Last error (file missing, unreadable); empty when healthy.
  const std::string& error() const { return error_; }

 private:
  struct Impl;
  std::string path_;
  std::string error_;
  Impl* impl_;
};

}  // namespace ibw::ingest

// Pieces of the file tailer shared by its three files (ingest/file_tailer.cpp: cursor, read
// loop and public calls; ingest/file_tailer_files.cpp: files on disk;
// ingest/file_tailer_rotation.cpp: start position, rotation and truncation). Not for other modules.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <ctime>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/file_tailer.h"

namespace ibw::ingest {
namespace file_tailer_detail {

// Hash of the file's first line (or of its first 4 KiB when that line is longer); 0 while the
// first line is still incomplete.
uint64_t first_line_hash(int fd);

// One file on disk as stat(2) saw it.
struct FileInfo {
  std::string path;
  uint64_t dev = 0, ino = 0;
  uint64_t size = 0;
  timespec mtime{};
  uint64_t fingerprint = 0;  // filled for siblings only
};

std::optional<FileInfo> stat_file(const std::string& path, int fd = -1);

// Rotated siblings of path: `<path>.*` and `<path>-*` in the same directory, uncompressed.
std::vector<FileInfo> list_siblings(const std::string& path);

// True when a was written after b: later mtime; on a tie, logrotate order of the names.
bool newer_than(const FileInfo& a, const FileInfo& b, const std::string& path);

// Offset just after the last '\n' in the first `size` bytes of fd (0 when there is none).
uint64_t last_line_end(int fd, uint64_t size);

}  // namespace file_tailer_detail

struct FileTailer::Impl {
  // One open file. buf[head, fill) holds the bytes [offset, read_off) of the file that were
  // read but not delivered yet: the start of a line whose newline has not arrived. buf is
  // sized once and reused (bytes past fill are stale), so reads do not zero-fill it.
  struct Source {
    int fd = -1;  // -1: the remnant of a truncated file; only its buffered bytes are left
    uint64_t dev = 0, ino = 0;
    uint64_t offset = 0, read_off = 0;
    uint64_t fingerprint = 0;
    std::string buf;
    size_t head = 0, fill = 0;
    TailCursor cursor() const { return {dev, ino, offset, fingerprint}; }
    std::string_view held() const { return {buf.data() + head, fill - head}; }
  };

  std::string path;
  std::optional<TailCursor> resume;
  bool start_at_end = false;
  std::deque<Source> queue;  // read front first; the back is the file at `path` once followed
  // (dev, inode, fingerprint) of files finished or skipped; with the fingerprint, since a
  // deleted file's inode number is soon reused.
  std::deque<std::array<uint64_t, 3>> seen;
  std::string error;

  ~Impl() {
    for (auto& s : queue)
      if (s.fd >= 0) close(s.fd);
  }

  // ingest/file_tailer_rotation.cpp
  std::optional<Source> open_at(const std::string& file, uint64_t offset);
  bool is_seen(uint64_t dev, uint64_t ino, uint64_t fingerprint) const;
  bool is_queued(uint64_t dev, uint64_t ino) const;
  void mark_seen(uint64_t dev, uint64_t ino, uint64_t fingerprint);
  // Whether the file behind fd starts as the one s reads: same first-line fingerprint, or,
  // while s's first line is incomplete, the same bytes as those s holds. nullopt: s has
  // read nothing to compare with.
  static std::optional<bool> starts_like(int fd, const Source& s);
  // Queues, oldest first, the siblings rotated away after `left` that were never read.
  void queue_rotated_after(const file_tailer_detail::FileInfo& left, uint64_t left_fingerprint,
                           const std::optional<file_tailer_detail::FileInfo>& live,
                           std::vector<file_tailer_detail::FileInfo> siblings);
  // Takes the starting position: the cursor (wherever its file went), or the file itself.
  void start();
  // The live file shrank or its first line changed: what was not delivered comes from the
  // copy (copytruncate) when one is found, else from the buffer; then the file restarts at 0.
  void check_truncation(const file_tailer_detail::FileInfo& info);
  // Looks at what `path` names now: appeared, truncated, or a new file after a rotation.
  void follow();

  // ingest/file_tailer.cpp
  // Delivers s's complete lines (at most max_lines, counted in n) in runs to take, as they are
  // read; returns true once s is read to its end.
  bool drain(Source& s, const RunTaker& take, size_t& n, size_t max_lines);
};

}  // namespace ibw::ingest

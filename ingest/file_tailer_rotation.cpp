// FileTailer's start position and the files it follows: rotation, copytruncate and truncation
// (ingest/file_tailer_detail.h).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "ingest/file_tailer_detail.h"

namespace ibw::ingest {
namespace file_tailer_detail {

constexpr size_t kSeenLimit = 256;

}  // namespace file_tailer_detail

std::optional<FileTailer::Impl::Source> FileTailer::Impl::open_at(const std::string& file,
                                                                  uint64_t offset) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open " + file + ": " + std::strerror(errno);
    return std::nullopt;
  }
  auto info = file_tailer_detail::stat_file(file, fd);
  if (!info) {
    close(fd);
    error = "not a regular file: " + file;
    return std::nullopt;
  }
  Source s;
  s.fd = fd;
  s.dev = info->dev;
  s.ino = info->ino;
  s.offset = s.read_off = offset;
  s.fingerprint = file_tailer_detail::first_line_hash(fd);
  return s;
}

bool FileTailer::Impl::is_seen(uint64_t dev, uint64_t ino, uint64_t fingerprint) const {
  return std::find(seen.begin(), seen.end(), std::array{dev, ino, fingerprint}) != seen.end();
}
bool FileTailer::Impl::is_queued(uint64_t dev, uint64_t ino) const {
  return std::any_of(queue.begin(), queue.end(),
                     [&](const Source& s) { return s.fd >= 0 && s.dev == dev && s.ino == ino; });
}
void FileTailer::Impl::mark_seen(uint64_t dev, uint64_t ino, uint64_t fingerprint) {
  if (is_seen(dev, ino, fingerprint)) return;
  seen.push_back({dev, ino, fingerprint});
  if (seen.size() > file_tailer_detail::kSeenLimit) seen.pop_front();
}

// Whether the file behind fd starts as the one s reads: same first-line fingerprint, or,
// while s's first line is incomplete, the same bytes as those s holds. nullopt: s has
// read nothing to compare with.
std::optional<bool> FileTailer::Impl::starts_like(int fd, const Source& s) {
  if (s.fingerprint != 0) return file_tailer_detail::first_line_hash(fd) == s.fingerprint;
  size_t held = s.fill - s.head;
  if (s.offset != 0 || held == 0) return std::nullopt;
  std::string head(held, '\0');
  if (pread(fd, head.data(), held, 0) != static_cast<ssize_t>(held)) return false;
  return s.held() == head;
}

// Queues, oldest first, the siblings rotated away after `left` that were never read.
void FileTailer::Impl::queue_rotated_after(const file_tailer_detail::FileInfo& left,
                                           uint64_t left_fingerprint,
                                           const std::optional<file_tailer_detail::FileInfo>& live,
                                           std::vector<file_tailer_detail::FileInfo> siblings) {
  using file_tailer_detail::FileInfo;
  std::vector<FileInfo> next;
  for (auto& f : siblings) {
    if ((f.dev == left.dev && f.ino == left.ino) ||
        (live && f.dev == live->dev && f.ino == live->ino) ||
        is_seen(f.dev, f.ino, f.fingerprint) || is_queued(f.dev, f.ino) ||
        !file_tailer_detail::newer_than(f, left, path))
      continue;
    next.push_back(std::move(f));
  }
  std::sort(next.begin(), next.end(), [&](const FileInfo& a, const FileInfo& b) {
    return file_tailer_detail::newer_than(b, a, path);
  });
  for (const auto& f : next) {
    auto s = open_at(f.path, 0);
    if (!s) continue;
    if (left_fingerprint != 0 && s->fingerprint == left_fingerprint) {  // a copytruncate copy
      close(s->fd);
      continue;
    }
    queue.push_back(std::move(*s));
  }
}

// Takes the starting position: the cursor (wherever its file went), or the file itself.
void FileTailer::Impl::start() {
  auto live = file_tailer_detail::stat_file(path);
  auto siblings = file_tailer_detail::list_siblings(path);
  if (resume) {
    const TailCursor& c = *resume;
    std::vector<file_tailer_detail::FileInfo> files = siblings;
    if (live) files.insert(files.begin(), *live);
    // Its own inode (with the same first line) first, else a copy with the same first line.
    for (int pass = 0; pass < 2; ++pass) {
      for (const auto& f : files) {
        bool same_inode = f.dev == c.dev && f.ino == c.inode;
        if ((pass == 0) != same_inode || (pass == 1 && c.fingerprint == 0) || f.size < c.offset)
          continue;
        auto s = open_at(f.path, c.offset);
        if (!s) continue;
        if (c.fingerprint != 0 && s->fingerprint != c.fingerprint) {
          close(s->fd);
          continue;
        }
        uint64_t fingerprint = s->fingerprint;
        queue.push_back(std::move(*s));
        if (!live || live->dev != f.dev || live->ino != f.ino)
          queue_rotated_after(f, fingerprint, live, siblings);
        for (const auto& g : siblings)
          if (!is_queued(g.dev, g.ino)) mark_seen(g.dev, g.ino, g.fingerprint);
        error.clear();
        return;
      }
    }
  }
  for (const auto& g : siblings) mark_seen(g.dev, g.ino, g.fingerprint);
  if (!live) return;  // waited for, then read from 0
  auto s = open_at(path, 0);
  if (!s) return;
  if (start_at_end && !resume)
    s->offset = s->read_off = file_tailer_detail::last_line_end(s->fd, live->size);
  queue.push_back(std::move(*s));
  error.clear();
}

// The live file shrank or its first line changed: what was not delivered comes from the
// copy (copytruncate) when one is found, else from the buffer; then the file restarts at 0.
void FileTailer::Impl::check_truncation(const file_tailer_detail::FileInfo& info) {
  Source& s = queue.back();
  if (info.size >= s.read_off && starts_like(s.fd, s).value_or(true)) return;
  Source live = std::move(s);
  queue.pop_back();
  std::optional<file_tailer_detail::FileInfo> copy_info;
  auto siblings = file_tailer_detail::list_siblings(path);
  for (const auto& f : siblings) {
    if ((f.dev == live.dev && f.ino == live.ino) || f.size < live.offset ||
        is_seen(f.dev, f.ino, f.fingerprint))
      continue;
    auto copy = open_at(f.path, live.offset);
    if (!copy) continue;
    if (!starts_like(copy->fd, live).value_or(false)) {
      close(copy->fd);
      continue;
    }
    queue.push_back(std::move(*copy));
    copy_info = f;
    break;
  }
  if (copy_info) {  // several copytruncates since the last poll: the newer copies too
    queue_rotated_after(*copy_info, live.fingerprint, info, siblings);
  } else {
    Source rest;  // no copy: only the undelivered bytes we hold are left
    rest.dev = live.dev;
    rest.ino = live.ino;
    rest.offset = live.offset;
    rest.read_off = live.read_off;
    rest.fingerprint = live.fingerprint;
    rest.buf = live.held();
    rest.fill = rest.buf.size();
    queue.push_back(std::move(rest));
  }
  live.offset = live.read_off = 0;
  live.head = live.fill = 0;
  live.fingerprint = file_tailer_detail::first_line_hash(live.fd);
  queue.push_back(std::move(live));
}

// Looks at what `path` names now: appeared, truncated, or a new file after a rotation.
void FileTailer::Impl::follow() {
  auto live = file_tailer_detail::stat_file(path);
  if (!live) {
    int err = errno;
    error = queue.empty() ? "cannot open " + path + ": " + std::strerror(err) : "";
    return;
  }
  if (queue.empty()) {
    if (auto s = open_at(path, 0)) {
      queue.push_back(std::move(*s));
      error.clear();
    }
    return;
  }
  error.clear();
  Source& back = queue.back();
  if (back.dev == live->dev && back.ino == live->ino) {
    if (back.fd >= 0) check_truncation(*live);
    return;
  }
  // `path` names another file: rotated. Files rotated away since the one we read come
  // first; until the new file has data, the writer may still use the newest rotated one.
  if (auto left = file_tailer_detail::stat_file("", back.fd)) {
    auto siblings = file_tailer_detail::list_siblings(path);
    for (const auto& f : siblings)
      if (f.dev == left->dev && f.ino == left->ino) left->path = f.path;
    queue_rotated_after(*left, back.fingerprint, live, std::move(siblings));
  }
  if (live->size == 0) return;
  if (auto s = open_at(path, 0)) queue.push_back(std::move(*s));
}

}  // namespace ibw::ingest

#include "ingest/file_tailer.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>
#include <utility>

#include "ingest/line_scan.h"

namespace ibw::ingest {
namespace file_tailer_detail {

constexpr size_t kFingerprintBytes = 4096;
constexpr size_t kReadChunk = 256 * 1024;  // per pread() of new lines
constexpr size_t kScanChunk = 64 * 1024;   // per pread() of the backwards scan for a line end
constexpr size_t kSeenLimit = 256;

uint64_t fnv1a(const char* data, size_t size) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < size; ++i)
    h = (h ^ static_cast<unsigned char>(data[i])) * 1099511628211ull;
  return h == 0 ? 1 : h;  // 0 means "unknown"
}

// Hash of the file's first line (or of its first 4 KiB when that line is longer); 0 while the
// first line is still incomplete.
uint64_t first_line_hash(int fd) {
  std::array<char, kFingerprintBytes> buf;
  ssize_t n = pread(fd, buf.data(), buf.size(), 0);
  if (n <= 0) return 0;
  const void* nl = std::memchr(buf.data(), '\n', static_cast<size_t>(n));
  if (nl) return fnv1a(buf.data(), static_cast<size_t>(static_cast<const char*>(nl) - buf.data()));
  return static_cast<size_t>(n) == buf.size() ? fnv1a(buf.data(), buf.size()) : 0;
}

// One file on disk as stat(2) saw it.
struct FileInfo {
  std::string path;
  uint64_t dev = 0, ino = 0;
  uint64_t size = 0;
  timespec mtime{};
  uint64_t fingerprint = 0;  // filled for siblings only
};

std::optional<FileInfo> stat_file(const std::string& path, int fd = -1) {
  struct stat st;
  if ((fd >= 0 ? fstat(fd, &st) : stat(path.c_str(), &st)) != 0 || !S_ISREG(st.st_mode))
    return std::nullopt;
  return FileInfo{path, static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                  static_cast<uint64_t>(st.st_size), st.st_mtim};
}

bool is_compressed(std::string_view name) {
  for (std::string_view ext : {".gz", ".bz2", ".xz", ".zst", ".lz4", ".lzma", ".Z", ".zip"})
    if (name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext) return true;
  return false;
}

// Rotated siblings of path: `<path>.*` and `<path>-*` in the same directory, uncompressed.
std::vector<FileInfo> list_siblings(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::vector<FileInfo> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string_view name = e->d_name;
    if (name.size() <= base.size() + 1 || name.substr(0, base.size()) != base ||
        (name[base.size()] != '.' && name[base.size()] != '-') || is_compressed(name))
      continue;
    auto info = stat_file(dir + "/" + std::string(name));
    if (!info) continue;
    int fd = open(info->path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      info->fingerprint = first_line_hash(fd);
      close(fd);
    }
    out.push_back(std::move(*info));
  }
  closedir(d);
  return out;
}

// N of "<path>.N" / "<path>-N" (logrotate numbering: bigger is older); -1 otherwise, also
// for dates like "<path>-20261122" (dateext: compared as names, bigger is newer).
long rotation_number(const std::string& file, const std::string& path) {
  if (file.size() <= path.size() + 1) return -1;
  std::string_view n = std::string_view(file).substr(path.size() + 1);
  long v = 0;
  auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
  return ec == std::errc() && ptr == n.data() + n.size() && v < 1'000'000 ? v : -1;
}

// True when a was written after b: later mtime; on a tie, logrotate order of the names.
bool newer_than(const FileInfo& a, const FileInfo& b, const std::string& path) {
  if (a.mtime.tv_sec != b.mtime.tv_sec) return a.mtime.tv_sec > b.mtime.tv_sec;
  if (a.mtime.tv_nsec != b.mtime.tv_nsec) return a.mtime.tv_nsec > b.mtime.tv_nsec;
  long na = rotation_number(a.path, path), nb = rotation_number(b.path, path);
  if (na >= 0 && nb >= 0) return na < nb;
  return a.path > b.path;
}

// Offset just after the last '\n' in the first `size` bytes of fd (0 when there is none).
uint64_t last_line_end(int fd, uint64_t size) {
  std::array<char, kScanChunk> buf;
  uint64_t end = size;
  while (end > 0) {
    uint64_t start = end > buf.size() ? end - buf.size() : 0;
    ssize_t n = pread(fd, buf.data(), static_cast<size_t>(end - start), static_cast<off_t>(start));
    if (n <= 0) return 0;
    for (ssize_t i = n - 1; i >= 0; --i)
      if (buf[static_cast<size_t>(i)] == '\n') return start + static_cast<uint64_t>(i) + 1;
    end = start;
  }
  return 0;
}

}  // namespace file_tailer_detail

std::string TailCursor::serialize() const {
  return std::to_string(dev) + ":" + std::to_string(inode) + ":" + std::to_string(offset) + ":" +
         std::to_string(fingerprint);
}

std::optional<TailCursor> TailCursor::parse(const std::string& text) {
  std::array<uint64_t, 4> v{};
  std::string_view s = text;
  for (size_t i = 0; i < v.size(); ++i) {
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v[i]);
    if (ec != std::errc() || ptr == s.data()) return std::nullopt;
    s.remove_prefix(static_cast<size_t>(ptr - s.data()));
    if (i + 1 < v.size() && (s.empty() || s.front() != ':')) return std::nullopt;
    if (i + 1 < v.size()) s.remove_prefix(1);
  }
  if (!s.empty()) return std::nullopt;
  return TailCursor{v[0], v[1], v[2], v[3]};
}

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

  std::optional<Source> open_at(const std::string& file, uint64_t offset) {
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

  bool is_seen(uint64_t dev, uint64_t ino, uint64_t fingerprint) const {
    return std::find(seen.begin(), seen.end(), std::array{dev, ino, fingerprint}) != seen.end();
  }
  bool is_queued(uint64_t dev, uint64_t ino) const {
    return std::any_of(queue.begin(), queue.end(),
                       [&](const Source& s) { return s.fd >= 0 && s.dev == dev && s.ino == ino; });
  }
  void mark_seen(uint64_t dev, uint64_t ino, uint64_t fingerprint) {
    if (is_seen(dev, ino, fingerprint)) return;
    seen.push_back({dev, ino, fingerprint});
    if (seen.size() > file_tailer_detail::kSeenLimit) seen.pop_front();
  }

  // Whether the file behind fd starts as the one s reads: same first-line fingerprint, or,
  // while s's first line is incomplete, the same bytes as those s holds. nullopt: s has
  // read nothing to compare with.
  static std::optional<bool> starts_like(int fd, const Source& s) {
    if (s.fingerprint != 0) return file_tailer_detail::first_line_hash(fd) == s.fingerprint;
    size_t held = s.fill - s.head;
    if (s.offset != 0 || held == 0) return std::nullopt;
    std::string head(held, '\0');
    if (pread(fd, head.data(), held, 0) != static_cast<ssize_t>(held)) return false;
    return s.held() == head;
  }

  // Queues, oldest first, the siblings rotated away after `left` that were never read.
  void queue_rotated_after(const file_tailer_detail::FileInfo& left, uint64_t left_fingerprint,
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
  void start() {
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
  void check_truncation(const file_tailer_detail::FileInfo& info) {
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
  void follow() {
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

  // Delivers s's complete lines (at most max_lines, counted in n) in runs, as they are read;
  // returns true once s is read to its end.
  bool drain(Source& s, const ChunkVisitor& visit, size_t& n, size_t max_lines) {
    for (;;) {
      const char* begin = s.buf.data() + s.head;
      const size_t held = s.fill - s.head;
      const void* nl = n < max_lines && held > 0 ? memrchr(begin, '\n', held) : nullptr;
      if (nl) {
        size_t len = static_cast<size_t>(static_cast<const char*>(nl) - begin) + 1;
        size_t lines = count_newlines(begin, len);
        if (lines > max_lines - n) {  // cut after the line that reaches max_lines
          lines = max_lines - n;
          len = end_of_lines(begin, len, lines);
        }
        const TailCursor start = s.cursor();
        s.offset += len;
        s.head += len;
        n += lines;
        visit(std::string_view(begin, len), lines, start);
      }
      if (n >= max_lines) return false;
      if (s.fd < 0) return true;
      if (s.head > 0) {  // keep the held partial line at the front
        std::memmove(s.buf.data(), s.buf.data() + s.head, s.fill - s.head);
        s.fill -= s.head;
        s.head = 0;
      }
      if (s.buf.size() < s.fill + file_tailer_detail::kReadChunk)
        s.buf.resize(s.fill + file_tailer_detail::kReadChunk);  // zero-fills only when it grows
      ssize_t got = pread(s.fd, s.buf.data() + s.fill, file_tailer_detail::kReadChunk,
                          static_cast<off_t>(s.read_off));
      if (got < 0) {
        error = "cannot read " + path + ": " + std::strerror(errno);
        return false;
      }
      if (got == 0) return true;
      s.fill += static_cast<size_t>(got);
      s.read_off += static_cast<uint64_t>(got);
      if (s.fingerprint == 0) s.fingerprint = file_tailer_detail::first_line_hash(s.fd);
    }
  }
};

FileTailer::FileTailer(std::string path, std::optional<TailCursor> cursor, bool start_at_end)
    : path_(std::move(path)), impl_(new Impl) {
  impl_->path = path_;
  impl_->resume = cursor;
  impl_->start_at_end = start_at_end;
  impl_->start();  // take position now: lines written from here on are not missed
  error_ = impl_->error;
}

FileTailer::~FileTailer() {
  delete impl_;
}

std::vector<TailLine> FileTailer::poll(size_t max_lines) {
  std::vector<TailLine> out;
  poll_each(max_lines, [&out](std::string_view text, const TailCursor& after) {
    out.push_back(TailLine{std::string(text), after});
  });
  return out;
}

size_t FileTailer::poll_each(size_t max_lines, const LineVisitor& visit) {
  return poll_chunks(max_lines, [&visit](std::string_view text, size_t, TailCursor after) {
    while (!text.empty()) {
      const void* nl = std::memchr(text.data(), '\n', text.size());
      const size_t len =
          nl ? static_cast<size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
      after.offset += len + (nl ? 1 : 0);
      visit(text.substr(0, len), after);
      text.remove_prefix(std::min(text.size(), len + 1));
    }
  });
}

size_t FileTailer::poll_chunks(size_t max_lines, const ChunkVisitor& visit) {
  size_t n = 0;
  if (max_lines == 0) return n;
  Impl& m = *impl_;
  m.follow();
  while (!m.queue.empty()) {
    Impl::Source& s = m.queue.front();
    if (!m.drain(s, visit, n, max_lines) || m.queue.size() == 1) break;
    // s is read to its end and a newer file follows: deliver s's partial last line, move on.
    if (s.head < s.fill) {
      const TailCursor start = s.cursor();
      std::string_view text = s.held();
      s.offset += text.size();
      s.head = s.fill;
      ++n;
      visit(text, 1, start);
    }
    if (s.fd >= 0) {
      m.mark_seen(s.dev, s.ino, s.fingerprint);
      close(s.fd);
    }
    m.queue.pop_front();
    if (n >= max_lines) break;
  }
  error_ = m.error;
  return n;
}

std::optional<TailCursor> FileTailer::position() const {
  if (impl_->queue.empty()) return std::nullopt;
  return impl_->queue.front().cursor();
}

}  // namespace ibw::ingest

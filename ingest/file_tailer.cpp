// FileTailer: its cursor, the read loop that delivers lines, and the public calls. Files on disk
// are in ingest/file_tailer_files.cpp, rotation and truncation in ingest/file_tailer_rotation.cpp.
#include "ingest/file_tailer.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>

#include "ingest/file_tailer_detail.h"
#include "ingest/line_scan.h"

namespace ibw::ingest {
namespace file_tailer_detail {

constexpr size_t kReadChunk = 256 * 1024;  // per pread() of new lines

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

// Delivers s's complete lines (at most max_lines, counted in n) in runs to take, as they are
// read; returns true once s is read to its end.
bool FileTailer::Impl::drain(Source& s, const RunTaker& take, size_t& n, size_t max_lines) {
  for (;;) {
    const char* begin = s.buf.data() + s.head;
    const size_t held = s.fill - s.head;
    const void* nl = n < max_lines && held > 0 ? memrchr(begin, '\n', held) : nullptr;
    if (nl) {
      const size_t len = static_cast<size_t>(static_cast<const char*>(nl) - begin) + 1;
      const TailCursor start = s.cursor();
      const Taken t = take(std::string_view(begin, len), max_lines - n, start);
      s.offset += t.bytes;
      s.head += t.bytes;
      n += t.lines;
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
  return poll_runs(max_lines,
                   [&visit](std::string_view text, size_t budget, const TailCursor& start) {
                     size_t lines = count_newlines(text.data(), text.size());
                     if (lines == 0) {
                       lines = 1;                  // the partial last line
                     } else if (lines > budget) {  // cut after the line that reaches the budget
                       lines = budget;
                       text = text.substr(0, end_of_lines(text.data(), text.size(), lines));
                     }
                     visit(text, lines, start);
                     return Taken{text.size(), lines};
                   });
}

size_t FileTailer::poll_runs(size_t max_lines, const RunTaker& take) {
  size_t n = 0;
  if (max_lines == 0) return n;
  Impl& m = *impl_;
  m.follow();
  while (!m.queue.empty()) {
    Impl::Source& s = m.queue.front();
    if (!m.drain(s, take, n, max_lines) || m.queue.size() == 1) break;
    // s is read to its end and a newer file follows: deliver s's partial last line, move on.
    if (s.head < s.fill) {
      const TailCursor start = s.cursor();
      std::string_view text = s.held();
      s.offset += text.size();
      s.head = s.fill;
      ++n;
      take(text, max_lines - n + 1, start);  // consumed whole: one line
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

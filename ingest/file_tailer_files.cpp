// FileTailer's view of files on disk: stat, first-line fingerprints, rotated siblings and their
// order (ingest/file_tailer_detail.h).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <cstring>
#include <utility>

#include "ingest/file_tailer_detail.h"

namespace ibw::ingest {
namespace file_tailer_detail {

constexpr size_t kFingerprintBytes = 4096;
constexpr size_t kScanChunk = 64 * 1024;  // per pread() of the backwards scan for a line end

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

std::optional<FileInfo> stat_file(const std::string& path, int fd) {
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

}  // namespace ibw::ingest

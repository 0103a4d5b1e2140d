#include "fabric/diagnostics.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ibw::fabric {
namespace {
std::string join(const std::vector<Diagnostic>& diags) {
  std::string out;
  for (const auto& d : diags) {
    if (!out.empty()) out += '\n';
    out += format_diagnostic(d);
  }
  return out;
}
}  // namespace

std::string format_diagnostic(const Diagnostic& d) {
  std::string s = d.file;
  if (d.line > 0) s += ":" + std::to_string(d.line);
  s += ": ";
  if (!d.field.empty()) s += d.field + ": ";
  s += d.message;
  return s;
}

InputError::InputError(std::vector<Diagnostic> diags)
    : std::runtime_error(join(diags)), diags_(std::move(diags)) {}

void DiagnosticSink::add(int line, std::string field, std::string message) {
  diags_.push_back({file_, line, std::move(field), std::move(message)});
}

void DiagnosticSink::throw_if_any() {
  if (!diags_.empty()) throw InputError(std::move(diags_));
}

namespace {
std::string cap_text(size_t bytes) {
  if (bytes >= (size_t{1} << 20) && bytes % (size_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

[[noreturn]] void over_cap(const std::string& path, size_t max_bytes, const char* what,
                           const std::string& seen) {
  throw InputError(
      {{path, 0, "", "over the " + cap_text(max_bytes) + " cap for " + what + " (" + seen + ")"}});
}

// Opens for reading; the descriptor is checked (fstat) to be a regular file or a pipe.
int open_checked(const std::string& path, struct stat& st) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw InputError({{path, 0, "", std::string("cannot open: ") + std::strerror(errno)}});
  if (::fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
    ::close(fd);
    throw InputError({{path, 0, "", "not a regular file or a pipe (a device or a directory)"}});
  }
  return fd;
}
}  // namespace

std::string read_file(const std::string& path, size_t max_bytes, const char* what) {
  struct stat st {};
  int fd = open_checked(path, st);
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    over_cap(path, max_bytes, what, std::to_string(st.st_size) + " bytes");
  }
  std::string data;
  // Regular files: their size (read up to one byte past it, should they grow); pipes and /proc
  // files report none: chunks, never past the cap.
  data.reserve(S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) + 1 : 0);
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      throw InputError({{path, 0, "", std::string("read error: ") + std::strerror(errno)}});
    }
    if (n == 0) break;
    if (data.size() + static_cast<size_t>(n) > max_bytes) {
      ::close(fd);
      over_cap(path, max_bytes, what, "more than " + std::to_string(max_bytes) + " bytes read");
    }
    data.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return data;
}

std::string read_secret_file(const std::string& path) {
  struct stat st {};
  int fd = open_checked(path, st);
  ::close(fd);
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    throw InputError(
        {{path, 0, "", "group or other users may write it (chmod go-w; it holds a secret)"}});
  return read_file(path, kMaxSecretBytes, "a secret file");
}

FileText::FileText(const std::string& path, size_t max_bytes) {
  // Only a regular file is opened here: a FIFO is opened once, by read_file (a second open
  // would wait for a writer that has gone).
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      if (static_cast<uint64_t>(st.st_size) > max_bytes) {
        ::close(fd);
        over_cap(path, max_bytes, "an input file", std::to_string(st.st_size) + " bytes");
      }
      const size_t size = static_cast<size_t>(st.st_size);
      void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (m != MAP_FAILED) map_ = static_cast<const char*>(m), size_ = size;
    }
    if (fd >= 0) ::close(fd);
  }
  if (!map_)
    copy_ = read_file(path, max_bytes);  // not regular, empty, or no map: read (and its errors)
}

FileText::FileText(FileText&& other) noexcept
    : map_(other.map_), size_(other.size_), copy_(std::move(other.copy_)) {
  other.map_ = nullptr, other.size_ = 0;
}

FileText::~FileText() {
  if (map_) ::munmap(const_cast<char*>(map_), size_);
}

}  // namespace ibw::fabric

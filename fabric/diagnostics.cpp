#include "fabric/diagnostics.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

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

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError({{path, 0, "", std::string("cannot open: ") + std::strerror(errno)}});
  }
  std::string data;
  in.seekg(0, std::ios::end);
  auto size = in.tellg();
  if (size > 0) {
    data.resize(static_cast<size_t>(size));
    in.seekg(0);
    in.read(data.data(), size);
  } else {  // pipes and /proc files report no size
    in.seekg(0);
    std::ostringstream ss;
    ss << in.rdbuf();
    data = ss.str();
  }
  if (in.bad()) throw InputError({{path, 0, "", "read error"}});
  return data;
}

FileText::FileText(const std::string& path) {
  // Only a regular file is opened here: a FIFO is opened once, by read_file (a second open
  // would wait for a writer that has gone).
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      const size_t size = static_cast<size_t>(st.st_size);
      void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (m != MAP_FAILED) map_ = static_cast<const char*>(m), size_ = size;
    }
    if (fd >= 0) ::close(fd);
  }
  if (!map_) copy_ = read_file(path);  // not regular, empty, or no map: read (and its errors)
}

FileText::FileText(FileText&& other) noexcept
    : map_(other.map_), size_(other.size_), copy_(std::move(other.copy_)) {
  other.map_ = nullptr, other.size_ = 0;
}

FileText::~FileText() {
  if (map_) ::munmap(const_cast<char*>(map_), size_);
}

}  // namespace ibw::fabric

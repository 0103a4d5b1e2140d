#include "ingest/probe_spool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "core/redact.h"
#include "fabric/diagnostics.h"

namespace ibw::ingest {
namespace spool_detail {

namespace fs = std::filesystem;

bool wanted(const fs::path& p) {
  std::string name = p.filename().string(), ext = p.extension().string();
  if (name.empty() || name[0] == '.') return false;
  return ext == ".jsonl" || ext == ".json" || ext == ".ndjson" || ext == ".csv";
}

// Moves `from` into `to_dir`, never over an older file of the same name.
void move_into(const fs::path& from, const fs::path& to_dir) {
  fs::path target = to_dir / from.filename();
  for (int i = 1; fs::exists(fs::symlink_status(target)); ++i)
    target = to_dir / (from.stem().string() + "." + std::to_string(i) + from.extension().string());
  fs::rename(from, target);
}

// A file refused before reading: the reason for the report and its /metrics name.
struct Refusal {
  std::string why, reason;
};

// The file's text, read from one descriptor opened without following a link; a Refusal when
// it is not what a writer drops (see probe_spool.h). Throws on an I/O error.
struct Opened {
  std::string text;
  std::optional<Refusal> refused;
  int64_t mtime_us = 0;
};

Opened open_file(const fs::path& f, uid_t dir_owner, size_t max_bytes) {
  Opened out;
  int fd = ::open(f.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0 && errno == ELOOP) {
    out.refused = Refusal{"a symbolic link (not followed, not read)", "spool_not_regular"};
    return out;
  }
  if (fd < 0) throw std::runtime_error(std::strerror(errno));
  struct stat st {};
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::fstat(fd, &st) != 0) throw std::runtime_error(std::strerror(errno));
  out.mtime_us = st.st_mtim.tv_sec * 1'000'000LL + st.st_mtim.tv_nsec / 1000;
  if (!S_ISREG(st.st_mode))
    out.refused =
        Refusal{"not a regular file (a device, FIFO or socket; not read)", "spool_not_regular"};
  else if (st.st_nlink != 1)
    out.refused =
        Refusal{"a hard link to another file (" + std::to_string(st.st_nlink) + " links; not read)",
                "spool_not_regular"};
  else if (st.st_uid != ::geteuid() && st.st_uid != dir_owner)
    out.refused = Refusal{"owned by uid " + std::to_string(st.st_uid) +
                              ", not by the service's user or the spool's owner (not read)",
                          "spool_owner"};
  else if (static_cast<uint64_t>(st.st_size) > max_bytes)
    out.refused =
        Refusal{std::to_string(st.st_size) + " bytes, over the " + std::to_string(max_bytes) +
                    "-byte cap (probes.spool_max_bytes; not read)",
                "spool_too_big"};
  if (out.refused) return out;
  out.text.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::strerror(errno));
    if (n == 0) break;
    if (out.text.size() + static_cast<size_t>(n) > max_bytes) {  // grew while being read
      out.text.clear();
      out.refused = Refusal{"grew over the " + std::to_string(max_bytes) +
                                "-byte cap while read (probes.spool_max_bytes)",
                            "spool_too_big"};
      return out;
    }
    out.text.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// One diagnostic with the file's words cut short and masked: an error report never copies a
// secret that a wrong file held.
std::string safe_diagnostic(fabric::Diagnostic d) {
  d.field = core::masked_excerpt(d.field, 32);
  d.message = core::masked_excerpt(d.message, 100);
  return fabric::format_diagnostic(d);
}

// NAME.errors, replaced; never through a link someone left in failed/.
void write_errors(const fs::path& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0640);
  if (fd < 0) throw std::runtime_error(path.string() + ": " + std::strerror(errno));
  for (size_t at = 0; at < text.size();) {
    ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    at += static_cast<size_t>(n);
  }
  ::close(fd);
}

}  // namespace spool_detail

ProbeSpool::ProbeSpool(std::string dir, int64_t settle_us, size_t max_bytes)
    : dir_(std::move(dir)), settle_us_(settle_us), max_bytes_(max_bytes) {
  std::error_code ec;
  for (const char* sub : {"", "done", "failed"}) {
    std::filesystem::create_directories(std::filesystem::path(dir_) / sub, ec);
    if (ec)
      throw std::runtime_error("probes.spool_dir " + dir_ + ": cannot create " +
                               (*sub ? std::string(sub) + "/: " : "it: ") + ec.message());
  }
}

SpoolResult ProbeSpool::poll(int64_t now_us) {
  namespace fs = std::filesystem;
  using namespace spool_detail;
  SpoolResult out;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fe;
    // Not followed: a symbolic link (or a device) with a wanted name is refused below.
    if (!it->is_directory(fe) && wanted(it->path())) files.push_back(it->path());
  }
  struct stat dir_st {};
  if (!ec && ::stat(dir_.c_str(), &dir_st) != 0)
    ec = std::error_code(errno, std::generic_category());
  if (ec) {
    out.error = "probes.spool_dir " + dir_ + ": " + ec.message();
    return out;
  }
  std::sort(files.begin(), files.end());
  const fs::path failed_dir = fs::path(dir_) / "failed";
  for (const fs::path& f : files) {
    const std::string name = f.filename().string();
    try {
      struct stat lst {};
      if (::lstat(f.c_str(), &lst) != 0) throw std::runtime_error(std::strerror(errno));
      int64_t mtime = lst.st_mtim.tv_sec * 1'000'000LL + lst.st_mtim.tv_nsec / 1000;
      if (S_ISREG(lst.st_mode) && now_us - mtime < settle_us_) continue;  // still being written
      Opened file = open_file(f, dir_st.st_uid, max_bytes_);
      if (S_ISREG(lst.st_mode) && !file.refused && now_us - file.mtime_us < settle_us_) continue;
      std::vector<std::string> errors;
      size_t n_errors = 0;
      if (file.refused) {
        errors.push_back(f.string() + ": " + file.refused->why);
        ++out.refused[file.refused->reason];
      } else {
        try {
          std::vector<Observation> obs = parse_observations(file.text, f.string());
          move_into(f, fs::path(dir_) / "done");
          out.accepted.push_back(name);
          std::move(obs.begin(), obs.end(), std::back_inserter(out.observations));
          continue;
        } catch (const fabric::InputError& e) {
          ++out.refused["spool_bad_lines"];
          n_errors = e.diagnostics().size();
          for (const auto& d : e.diagnostics()) {
            if (errors.size() == kMaxErrorLines) {
              errors.push_back("... " + std::to_string(e.diagnostics().size() - kMaxErrorLines) +
                               " more errors");
              break;
            }
            errors.push_back(safe_diagnostic(d));
          }
          if (errors.empty()) errors.push_back(f.string() + ": " + core::masked_excerpt(e.what()));
        }
      }
      std::string all;
      for (const auto& line : errors) all += line + "\n";
      write_errors(failed_dir / (name + ".errors"), all);
      move_into(f, failed_dir);
      out.rejected.push_back(name + ": " + errors.front() +
                             (file.refused ? "" : " (" + std::to_string(n_errors) + " errors)"));
    } catch (const std::exception& e) {  // vanished or unmovable: say so, try again next time
      out.rejected.push_back(name + ": " + e.what());
    }
  }
  return out;
}

}  // namespace ibw::ingest

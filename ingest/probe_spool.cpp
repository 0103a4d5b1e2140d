#include "ingest/probe_spool.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "fabric/diagnostics.h"

namespace ibw::ingest {
namespace spool_detail {

namespace fs = std::filesystem;

bool wanted(const fs::path& p) {
  std::string name = p.filename().string(), ext = p.extension().string();
  if (name.empty() || name[0] == '.') return false;
  return ext == ".jsonl" || ext == ".json" || ext == ".ndjson" || ext == ".csv";
}

int64_t mtime_us(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) throw std::runtime_error(std::strerror(errno));
  return st.st_mtim.tv_sec * 1'000'000LL + st.st_mtim.tv_nsec / 1000;
}

// Moves `from` into `to_dir`, never over an older file of the same name.
void move_into(const fs::path& from, const fs::path& to_dir) {
  fs::path target = to_dir / from.filename();
  for (int i = 1; fs::exists(target); ++i)
    target = to_dir / (from.stem().string() + "." + std::to_string(i) + from.extension().string());
  fs::rename(from, target);
}

}  // namespace spool_detail

ProbeSpool::ProbeSpool(std::string dir, int64_t settle_us)
    : dir_(std::move(dir)), settle_us_(settle_us) {
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
    if (it->is_regular_file(fe) && wanted(it->path())) files.push_back(it->path());
  }
  if (ec) {
    out.error = "probes.spool_dir " + dir_ + ": " + ec.message();
    return out;
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    try {
      if (now_us - mtime_us(f) < settle_us_) continue;  // still being written
      std::vector<Observation> obs;
      std::string failure;
      try {
        obs = load_observations(f.string());
      } catch (const fabric::InputError& e) {
        std::ofstream errors(fs::path(dir_) / "failed" / (f.filename().string() + ".errors"));
        for (const auto& d : e.diagnostics()) errors << fabric::format_diagnostic(d) << "\n";
        failure = f.filename().string() + ": " +
                  (e.diagnostics().empty() ? e.what()
                                           : fabric::format_diagnostic(e.diagnostics().front())) +
                  " (" + std::to_string(e.diagnostics().size()) + " errors)";
      }
      if (failure.empty()) {
        move_into(f, fs::path(dir_) / "done");
        out.accepted.push_back(f.filename().string());
        std::move(obs.begin(), obs.end(), std::back_inserter(out.observations));
      } else {
        move_into(f, fs::path(dir_) / "failed");
        out.rejected.push_back(std::move(failure));
      }
    } catch (const std::exception& e) {  // vanished or unmovable: say so, try again next time
      out.rejected.push_back(f.filename().string() + ": " + e.what());
    }
  }
  return out;
}

}  // namespace ibw::ingest

// ibw-bench-heap_growth: what the heap holds at given moments of a heaptrack run, by the
// ibwarden function that allocated it, to see what grows between them (bench_lab.sh --profile
// runs it on the daemon's heaptrack data). heaptrack_print gives the heap at its peak or at
// the end only; a daemon whose memory creeps up over a long run needs two moments compared.
// Reads the uncompressed heaptrack data on stdin (`zstdcat heap.zst |`): strings (s),
// instruction pointers (i: ip, module, then function/file/line frames, inlined ones after),
// trace nodes (t: ip, parent), allocation infos (a: size, trace), allocations (+ info) and
// frees (- info), and time stamps (c: ms since start), all numbers in hex. At the first time
// stamp at or after each given moment it adds up the live bytes of every allocation info
// under the innermost frame of its trace that names `ibw::`.
// Output: one line per function, the MiB live at each moment, the 20 that grew most first.
// Usage: ibw-bench-heap_growth MS [MS...] < heaptrack-data
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

struct Trace {
  size_t ip = 0, parent = 0;
};
struct AllocInfo {
  uint64_t size = 0;
  size_t trace = 0;
  uint64_t live = 0;  // allocations of this info not freed yet
};

class HeapData {
 public:
  void line(const char* s);
  // Live bytes by innermost ibw:: function (or "(outside ibwarden)").
  std::map<std::string, double> live_by_function() const;
  int64_t now_ms() const { return now_ms_; }

 private:
  std::string owner(size_t trace) const;
  std::vector<std::string> strings_{""};               // 1-based
  std::vector<std::vector<size_t>> ip_functions_{{}};  // 1-based: function string indices
  std::vector<Trace> traces_{{}};                      // 1-based
  std::vector<AllocInfo> infos_;                       // 0-based
  int64_t now_ms_ = 0;
};

void HeapData::line(const char* s) {
  char* end = nullptr;
  const char* p = s + 2;
  switch (s[0]) {
    case '+':
      if (size_t i = std::strtoull(p, nullptr, 16); i < infos_.size()) ++infos_[i].live;
      break;
    case '-':
      if (size_t i = std::strtoull(p, nullptr, 16); i < infos_.size() && infos_[i].live)
        --infos_[i].live;
      break;
    case 'a': {
      AllocInfo a;
      a.size = std::strtoull(p, &end, 16);
      a.trace = std::strtoull(end, nullptr, 16);
      infos_.push_back(a);
      break;
    }
    case 't': {
      Trace t;
      t.ip = std::strtoull(p, &end, 16);
      t.parent = std::strtoull(end, nullptr, 16);
      traces_.push_back(t);
      break;
    }
    case 'i': {  // ip module [function file line]...
      std::strtoull(p, &end, 16);
      std::strtoull(end, &end, 16);
      std::vector<size_t> functions;
      for (int field = 0;; ++field) {
        char* next = nullptr;
        size_t v = std::strtoull(end, &next, 16);
        if (next == end) break;
        end = next;
        if (field % 3 == 0) functions.push_back(v);
      }
      ip_functions_.push_back(std::move(functions));
      break;
    }
    case 's': {  // s <length> <text>
      std::strtoull(p, &end, 16);
      std::string text(*end == ' ' ? end + 1 : end);
      if (!text.empty() && text.back() == '\n') text.pop_back();
      strings_.push_back(std::move(text));
      break;
    }
    case 'c':
      now_ms_ = static_cast<int64_t>(std::strtoull(p, nullptr, 16));
      break;
    default:
      break;
  }
}

std::string HeapData::owner(size_t trace) const {
  for (size_t t = trace; t && t < traces_.size(); t = traces_[t].parent) {
    size_t ip = traces_[t].ip;
    if (ip >= ip_functions_.size()) break;
    for (size_t f : ip_functions_[ip]) {
      if (f >= strings_.size() || strings_[f].find("ibw::") == std::string::npos) continue;
      std::string name = strings_[f];
      name = name.substr(0, name.find('('));  // no argument list
      return name.substr(0, 110);
    }
  }
  return "(outside ibwarden)";
}

std::map<std::string, double> HeapData::live_by_function() const {
  std::map<size_t, double> by_trace;
  for (const auto& a : infos_)
    if (a.live) by_trace[a.trace] += static_cast<double>(a.live * a.size);
  std::map<std::string, double> out;
  double total = 0;
  for (const auto& [trace, bytes] : by_trace) out[owner(trace)] += bytes, total += bytes;
  out["(total)"] = total;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> at;
  for (int i = 1; i < argc; ++i) at.push_back(std::atoll(argv[i]));
  if (at.empty()) {
    std::fprintf(stderr, "usage: ibw-bench-heap_growth MS [MS...] < heaptrack-data\n");
    return 2;
  }
  std::sort(at.begin(), at.end());
  HeapData heap;
  std::vector<std::map<std::string, double>> snaps;
  std::vector<int64_t> when;
  std::string buf;
  std::vector<char> line(1 << 16);
  while (std::fgets(line.data(), static_cast<int>(line.size()), stdin)) {
    buf += line.data();
    if (buf.back() != '\n' && !std::feof(stdin)) continue;  // a line longer than the buffer
    heap.line(buf.c_str());
    buf.clear();
    while (snaps.size() < at.size() && heap.now_ms() >= at[snaps.size()]) {
      snaps.push_back(heap.live_by_function());
      when.push_back(heap.now_ms());
    }
  }
  if (snaps.empty()) {
    std::fprintf(stderr, "ibw-bench-heap_growth: the data ends before %lld ms\n",
                 static_cast<long long>(at.front()));
    return 1;
  }
  auto mib = [&](size_t s, const std::string& k) {
    auto it = snaps[s].find(k);
    return it == snaps[s].end() ? 0.0 : it->second / 1048576.0;
  };
  std::vector<std::pair<double, std::string>> rows;  // (growth, function)
  std::map<std::string, bool> seen;
  for (const auto& s : snaps)
    for (const auto& [k, v] : s)
      if (!seen[k]) seen[k] = true, rows.push_back({mib(snaps.size() - 1, k) - mib(0, k), k});
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second == "(total)" || (b.second != "(total)" && a.first > b.first);
  });
  std::printf("%9s", "grew MiB");
  for (int64_t t : when) std::printf("  %7.1fs", static_cast<double>(t) / 1000);
  std::printf("  live MiB by function\n");
  for (size_t r = 0; r < rows.size() && r < 21; ++r) {
    std::printf("%9.1f", rows[r].first);
    for (size_t s = 0; s < snaps.size(); ++s) std::printf("  %8.1f", mib(s, rows[r].second));
    std::printf("  %s\n", rows[r].second.c_str());
  }
  return 0;
}

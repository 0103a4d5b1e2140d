// The daemon's memory breakdown; see memory_stats.h.
#include "daemon/memory_stats.h"

#include <malloc.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

#include "daemon/logger.h"

namespace ibw::daemon {
namespace {

int64_t kib_field(std::string_view text, std::string_view name) {
  size_t at = text.find(name);
  while (at != std::string_view::npos && at != 0 && text[at - 1] != '\n')
    at = text.find(name, at + 1);
  if (at == std::string_view::npos) return 0;
  std::string_view rest = text.substr(at + name.size());
  size_t digits = rest.find_first_of("0123456789");
  if (digits == std::string_view::npos) return 0;
  rest.remove_prefix(digits);
  int64_t v = 0;
  std::from_chars(rest.data(), rest.data() + rest.size(), v);
  return v;
}

std::string malloc_info_text() {
  char* buf = nullptr;
  size_t size = 0;
  FILE* f = open_memstream(&buf, &size);
  if (!f) return {};
  malloc_info(0, f);
  std::fclose(f);
  std::string out(buf ? buf : "", size);
  std::free(buf);
  return out;
}

}  // namespace

void parse_proc_status(std::string_view status, MemoryStats& out) {
  out.rss_kib = kib_field(status, "VmRSS:");
  out.hwm_kib = kib_field(status, "VmHWM:");
  out.anon_kib = kib_field(status, "RssAnon:");
}

int count_malloc_arenas(std::string_view xml) {
  int n = 0;
  for (size_t at = xml.find("<heap nr="); at != std::string_view::npos;
       at = xml.find("<heap nr=", at + 1))
    ++n;
  return n;
}

MemoryStats read_memory_stats(bool heap) {
  MemoryStats s;
  std::ifstream in("/proc/self/status");
  std::stringstream text;
  text << in.rdbuf();
  parse_proc_status(text.str(), s);
  if (!heap) return s;
  s.heap = true;
  struct mallinfo2 m = mallinfo2();
  s.in_use_kib = static_cast<int64_t>((m.uordblks + m.hblkhd) / 1024);
  s.free_kib = static_cast<int64_t>(m.fordblks / 1024);
  s.mmapped_kib = static_cast<int64_t>(m.hblkhd / 1024);
  s.arena_kib = static_cast<int64_t>(m.arena / 1024);
  s.arenas = count_malloc_arenas(malloc_info_text());
  return s;
}

nlohmann::json memory_fields(const MemoryStats& s, std::string_view step) {
  nlohmann::json f = {{"step", step},
                      {"rss_mib", s.rss_kib / 1024},
                      {"hwm_mib", s.hwm_kib / 1024},
                      {"anon_mib", s.anon_kib / 1024},
                      {"heap_read", s.heap}};
  if (!s.heap) return f;
  f["heap_in_use_mib"] = s.in_use_kib / 1024;
  f["heap_free_mib"] = s.free_kib / 1024;
  f["heap_mmapped_mib"] = s.mmapped_kib / 1024;
  f["arenas"] = s.arenas;
  return f;
}

bool heap_figures_due(int64_t hwm_kib, bool trimmed, int64_t& last_heap_hwm_kib) {
  if (!trimmed && last_heap_hwm_kib && hwm_kib < last_heap_hwm_kib + kHeapFiguresStepKib)
    return false;
  last_heap_hwm_kib = std::max(last_heap_hwm_kib, hwm_kib);
  return true;
}

double release_free_memory() {
  auto started = std::chrono::steady_clock::now();
  malloc_trim(0);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
      .count();
}

void log_memory(std::string_view step, double trim_ms) {
  static std::mutex mutex;  // the threads that log share the last reading's peak
  static int64_t last_heap_hwm_kib = 0;
  MemoryStats s = read_memory_stats(false);
  bool due = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    due = heap_figures_due(s.hwm_kib, trim_ms >= 0, last_heap_hwm_kib);
  }
  if (due) s = read_memory_stats(true);
  nlohmann::json fields = memory_fields(s, step);
  if (trim_ms >= 0) fields["trim_ms"] = trim_ms;
  log(LogLevel::info, "memory", std::move(fields));
}

}  // namespace ibw::daemon

// Route observations: fields, values and writers (ingest/observation.h); reading lines and
// files is in observation_read.cpp.
#include "ingest/observation.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fabric/diagnostics.h"
#include "fabric/text_util.h"
#include "ingest/observation_detail.h"

namespace ibw::ingest {
namespace observation_detail {

namespace text = fabric::text;

constexpr std::string_view kFields[] = {
    "src",    "dst",        "sent",       "lost",    "slow", "gbps", "expected_gbps",
    "rtt_us", "rtt_p50_us", "rtt_p99_us", "routing", "path", "time", "roundtrip"};

std::string_view canonical_field(std::string_view f) {
  for (auto k : kFields)
    if (k == f) return k;
  return {};
}

// "2026-11-25T02:00:00Z" (optional .fraction) or Unix seconds -> UTC microseconds.
std::optional<int64_t> parse_time(std::string_view s) {
  if (auto secs = text::to_int<int64_t>(s); secs && *secs >= 0 && *secs < (1LL << 40))
    return *secs * 1'000'000;
  std::tm tm{};
  int frac_us = 0;
  std::istringstream in{std::string(s)};
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return std::nullopt;
  std::string rest;
  std::getline(in, rest);
  if (!rest.empty() && rest[0] == '.') {
    size_t n = 1;
    while (n < rest.size() && std::isdigit(static_cast<unsigned char>(rest[n]))) ++n;
    std::string digits = rest.substr(1, n - 1);
    digits.resize(6, '0');
    frac_us = std::stoi(digits.substr(0, 6));
    rest = rest.substr(n);
  }
  if (rest != "Z" && rest != "z" && rest != "+00:00") return std::nullopt;
  return static_cast<int64_t>(timegm(&tm)) * 1'000'000 + frac_us;
}

std::string iso_time(int64_t us) {  // "2026-11-25T02:00:00Z"
  std::time_t secs = static_cast<std::time_t>(us / 1'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<std::vector<int>> parse_path(std::string_view s) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string_view::npos) comma = s.size();
    auto port = text::to_int<int>(text::trim(s.substr(pos, comma - pos)));
    if (!port || *port < 0 || *port > 255) return std::nullopt;
    out.push_back(*port);
    pos = comma + 1;
  }
  if (out.size() < 2 || out.size() > 64) return std::nullopt;
  return out;
}

// One field's value as text (JSON numbers and strings alike) into the record.
void set_field(Observation& o, std::string_view field, std::string_view v, int line,
               fabric::DiagnosticSink& sink) {
  auto bad = [&](const std::string& why) { sink.add(line, std::string(field), why); };
  auto quoted = [&] { return "\"" + std::string(v) + "\""; };
  auto count = [&](uint64_t* out) {
    auto n = text::to_int<uint64_t>(v);
    if (!n) return bad(quoted() + " is not a whole number >= 0");
    *out = *n;
  };
  auto number = [&](std::optional<double>* out) {
    std::string s(v);
    char* end = nullptr;
    double x = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(x) || x < 0)
      return bad(quoted() + " is not a number >= 0");
    *out = x;
  };
  if (field == "src" || field == "dst") {
    if (text::trim(v).empty()) return bad("empty endpoint");
    (field == "src" ? o.src : o.dst).assign(text::trim(v));  // keeps a reused record's buffer
  } else if (field == "sent") {
    count(&o.sent);
  } else if (field == "lost") {
    count(&o.lost);
  } else if (field == "slow") {
    count(&o.slow);
  } else if (field == "gbps") {
    number(&o.gbps);
  } else if (field == "expected_gbps") {
    number(&o.expected_gbps);
  } else if (field == "rtt_us") {
    number(&o.rtt_us);
  } else if (field == "rtt_p50_us") {
    number(&o.rtt_p50_us);
  } else if (field == "rtt_p99_us") {
    number(&o.rtt_p99_us);
  } else if (field == "routing") {
    auto r = parse_routing(v);
    if (!r || *r == Routing::unspecified)
      return bad(quoted() + " is not static, adaptive or directed");
    o.routing = *r;
  } else if (field == "path") {
    auto p = parse_path(v);
    if (!p) return bad(quoted() + " is not a directed route like 0,1,5,3 (ports 0-255)");
    o.path = std::move(*p);
  } else if (field == "roundtrip") {
    if (v == "true" || v == "1")
      o.roundtrip = true;
    else if (v == "false" || v == "0")
      o.roundtrip = false;
    else
      return bad(quoted() + " is not true or false (1 or 0)");
  } else if (field == "time") {
    auto t = parse_time(v);
    if (!t) return bad(quoted() + " is not a UTC time (2026-11-25T02:00:00Z) or Unix seconds");
    o.time_us = *t;
  }
}

// Checks that need the whole record.
void check_record(const Observation& o, const std::vector<std::string_view>& given, int line,
                  fabric::DiagnosticSink& sink) {
  auto has = [&](std::string_view f) {
    for (const auto& g : given)
      if (g == f) return true;
    return false;
  };
  for (std::string_view req : {"src", "dst", "sent", "lost"})
    if (!has(req)) sink.add(line, std::string(req), "missing (every observation needs it)");
  if (o.lost > o.sent) sink.add(line, "lost", "lost is more than sent");
  if (o.slow > o.sent) sink.add(line, "slow", "slow is more than sent");
  if (has("gbps") != has("expected_gbps"))
    sink.add(line, has("gbps") ? "expected_gbps" : "gbps", "gbps and expected_gbps go together");
  if (o.routing == Routing::directed && o.path.empty())
    sink.add(line, "path", "missing (a directed observation needs its route)");
  if (o.routing != Routing::directed && !o.path.empty())
    sink.add(line, "routing", "a path needs routing: directed");
}

std::string scalar_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_float()) {
    std::ostringstream s;
    s << std::setprecision(17) << v.get<double>();
    return s.str();
  }
  if (v.is_array()) {  // "path": [0, 1, 5]
    std::string out;
    for (const auto& e : v) out += (out.empty() ? "" : ",") + scalar_text(e);
    return out;
  }
  return v.dump();
}

std::vector<std::string> split_csv(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        cur += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        cur += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(std::string(text::trim(cur)));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(std::string(text::trim(cur)));
  return out;
}

}  // namespace observation_detail

std::string_view routing_name(Routing r) {
  switch (r) {
    case Routing::static_lft:
      return "static";
    case Routing::adaptive:
      return "adaptive";
    case Routing::directed:
      return "directed";
    case Routing::unspecified:
      break;
  }
  return "";
}

std::optional<Routing> parse_routing(std::string_view s) {
  for (auto r : {Routing::static_lft, Routing::adaptive, Routing::directed})
    if (routing_name(r) == s) return r;
  return std::nullopt;
}

namespace observation_detail {

// The fast path for the common JSONL line: a flat object whose values are plain strings
// (printable ASCII, no escapes), unsigned integers, true, false, null or arrays of those
// integers. Values as text: strings without quotes, true and false as those words, arrays as
// their inside ("0,1,5"); null ones left out.
// Keys ordered and de-duplicated (the last wins) as the JSON library gives them. False for
// anything else: the caller parses that line with the JSON library.
bool scan_flat(std::string_view s, Fields& out) {
  out.clear();
  size_t i = 0;
  auto ws = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
  };
  auto string = [&](std::string_view* v) {
    if (i >= s.size() || s[i] != '"') return false;
    size_t start = ++i;
    while (i < s.size() && s[i] != '"') {
      unsigned char c = static_cast<unsigned char>(s[i]);
      if (c < 0x20 || c >= 0x80 || c == '\\') return false;
      ++i;
    }
    if (i >= s.size()) return false;
    *v = s.substr(start, i++ - start);
    return true;
  };
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start && i - start < 19 && (s[start] != '0' || i - start == 1);
  };
  ws();
  if (i >= s.size() || s[i++] != '{') return false;
  ws();
  if (i < s.size() && s[i] == '}') {
    ++i;
  } else {
    for (;;) {
      std::string_view key, value;
      ws();
      if (!string(&key)) return false;
      ws();
      if (i >= s.size() || s[i++] != ':') return false;
      ws();
      if (i >= s.size()) return false;
      bool null = false;
      if (s[i] == '"') {
        if (!string(&value)) return false;
      } else if (s[i] == '[') {
        size_t start = ++i;
        ws();
        if (i < s.size() && s[i] != ']')
          for (;;) {
            ws();
            if (!digits()) return false;
            ws();
            if (i < s.size() && s[i] == ',') {
              ++i;
              continue;
            }
            break;
          }
        if (i >= s.size() || s[i] != ']') return false;
        value = s.substr(start, i++ - start);
      } else if (s.substr(i, 4) == "null") {
        i += 4, null = true;
      } else if (s.substr(i, 4) == "true" || s.substr(i, 5) == "false") {
        size_t n = s[i] == 't' ? 4 : 5;
        value = s.substr(i, n), i += n;
      } else {
        size_t start = i;
        if (!digits()) return false;
        value = s.substr(start, i - start);
      }
      if (!null) out.push_back({key, value});
      ws();
      if (i < s.size() && s[i] == ',') {
        ++i;
        continue;
      }
      if (i >= s.size() || s[i++] != '}') return false;
      break;
    }
  }
  ws();
  if (i != s.size()) return false;
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  size_t keep = 0;  // the last of equal keys
  for (size_t k = 0; k < out.size(); ++k) {
    if (k + 1 < out.size() && out[k + 1].first == out[k].first) continue;
    out[keep++] = out[k];
  }
  out.resize(keep);
  return true;
}

}  // namespace observation_detail

std::string observation_jsonl(const Observation& o) {
  nlohmann::ordered_json j = {{"src", o.src}, {"dst", o.dst}, {"sent", o.sent}, {"lost", o.lost}};
  if (o.slow) j["slow"] = o.slow;
  if (o.gbps) j["gbps"] = *o.gbps;
  if (o.expected_gbps) j["expected_gbps"] = *o.expected_gbps;
  if (o.rtt_us) j["rtt_us"] = *o.rtt_us;
  if (o.rtt_p50_us) j["rtt_p50_us"] = *o.rtt_p50_us;
  if (o.rtt_p99_us) j["rtt_p99_us"] = *o.rtt_p99_us;
  if (o.routing != Routing::unspecified) j["routing"] = routing_name(o.routing);
  if (!o.path.empty()) {
    std::string p;
    for (int port : o.path) p += (p.empty() ? "" : ",") + std::to_string(port);
    j["path"] = p;
  }
  if (o.time_us) j["time"] = observation_detail::iso_time(o.time_us);
  if (o.roundtrip) j["roundtrip"] = true;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string observation_csv_header() {
  return "src,dst,sent,lost,rtt_p50_us,rtt_p99_us,routing,path,time,roundtrip";
}

std::string observation_csv(const Observation& o) {
  auto quote = [](const std::string& s) {
    if (s.find_first_of(",\"") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  auto num = [](const std::optional<double>& x) {
    if (!x) return std::string();
    std::ostringstream s;
    s << *x;
    return s.str();
  };
  std::string path;
  for (int port : o.path) path += (path.empty() ? "" : ",") + std::to_string(port);
  return quote(o.src) + "," + quote(o.dst) + "," + std::to_string(o.sent) + "," +
         std::to_string(o.lost) + "," + num(o.rtt_p50_us) + "," + num(o.rtt_p99_us) + "," +
         std::string(routing_name(o.routing)) + "," + quote(path) + "," +
         (o.time_us ? std::to_string(o.time_us / 1'000'000) : "") + "," +
         (o.roundtrip ? "true" : "");
}

}  // namespace ibw::ingest

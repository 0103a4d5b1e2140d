#include "daemon/logger.h"

#include "fabric/json_text.h"
#include "store/record_json.h"

#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

namespace ibw::daemon {

using store::event_json;
using store::iso_time;
using store::port_json;

namespace logger_detail {

std::atomic<int> g_level{static_cast<int>(LogLevel::info)};
std::mutex g_mutex;

std::string iso_now() {
  return iso_time(std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}

const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warning:
      return "warning";
    default:
      return "error";
  }
}

// Decided once, on the first record: stderr is the journal's stream.
bool to_journal() {
  static const bool journal = [] {
    struct stat st {};
    return fstat(STDERR_FILENO, &st) == 0 &&
           journal_stream_matches(std::getenv("JOURNAL_STREAM"), st.st_dev, st.st_ino);
  }();
  return journal;
}

// False when journald cannot take it; sd_journal_sendv itself reports success when its socket
// is missing (ENOENT), so that case is checked first.
bool send_journal(const std::vector<std::string>& fields) {
  if (::access("/run/systemd/journal/socket", F_OK) != 0) return false;
  std::vector<iovec> iov;
  iov.reserve(fields.size());
  for (const auto& f : fields) iov.push_back({const_cast<char*>(f.data()), f.size()});
  return sd_journal_sendv(iov.data(), static_cast<int>(iov.size())) >= 0;
}

// A field value as journal text: strings as they are, the rest as JSON; "" = leave out.
std::string value_text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A value in MESSAGE's key=value list: quoted (JSON) when it has spaces or quotes.
std::string message_value(const nlohmann::json& v) {
  std::string s = value_text(v);
  if (!v.is_string() || s.empty() || s.find_first_of(" \"=\n\t") != std::string::npos)
    return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return s;
}

bool reserved(const std::string& name) {
  static const std::set<std::string> names = {"MESSAGE",
                                              "MESSAGE_ID",
                                              "PRIORITY",
                                              "CODE_FILE",
                                              "CODE_LINE",
                                              "CODE_FUNC",
                                              "ERRNO",
                                              "INVOCATION_ID",
                                              "SYSLOG_FACILITY",
                                              "SYSLOG_IDENTIFIER",
                                              "SYSLOG_PID",
                                              "SYSLOG_TIMESTAMP",
                                              "SYSLOG_RAW",
                                              "DOCUMENTATION",
                                              "TID",
                                              "USER_INVOCATION_ID",
                                              "UNIT",
                                              "USER_UNIT",
                                              "OBJECT_PID",
                                              "COREDUMP_UNIT",
                                              "COREDUMP_USER_UNIT"};
  return names.count(name) > 0;
}

// "node/port" from a node name and a port number; "" unless both are there.
std::string node_port(const nlohmann::json& fields, const char* node_key, const char* port_key) {
  auto n = fields.find(node_key), p = fields.find(port_key);
  if (n == fields.end() || p == fields.end() || !n->is_string() || !p->is_number_integer())
    return "";
  std::string node = n->get<std::string>();
  return node.empty() ? "" : node + "/" + p->dump();
}

}  // namespace logger_detail

void set_log_level(std::string_view level) {
  using logger_detail::g_level;
  g_level = level == "debug" ? 0 : level == "warning" ? 2 : level == "error" ? 3 : 1;
}

int journal_priority(LogLevel level) {
  switch (level) {
    case LogLevel::debug:
      return 7;
    case LogLevel::info:
      return 6;
    case LogLevel::warning:
      return 4;
    default:
      return 3;
  }
}

std::string journal_field_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    bool ok = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += ok ? c : '_';
  }
  size_t start = out.find_first_not_of("_0123456789");
  out = start == std::string::npos ? "" : out.substr(start);
  if (out.size() > 64) out.resize(64);
  return out;
}

std::vector<std::string> journal_fields(LogLevel level, std::string_view msg,
                                        const nlohmann::json& fields) {
  using namespace logger_detail;
  std::string message(msg);
  std::vector<std::string> out = {"", "PRIORITY=" + std::to_string(journal_priority(level)),
                                  "SYSLOG_IDENTIFIER=ibwarden"};
  std::set<std::string> used = {"MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER"};
  auto add = [&](const std::string& key, const std::string& value) {
    if (key.empty() || value.empty() || !used.insert(key).second) return;
    out.push_back(key + "=" + value);
  };
  const bool decision_record = msg == "decision";
  // The link names first, so a field that happens to sanitize to the same name loses.
  std::string port, peer;
  if (fields.is_object()) {
    port = node_port(fields, "node", "port");
    auto p = fields.find("port");
    if (port.empty() && p != fields.end() && p->is_string() &&
        p->get<std::string>().find('/') != std::string::npos)
      port = p->get<std::string>();  // already "node/port"
    peer = node_port(fields, "peer_node", "peer_port");
  }
  add("PORT", port);
  add("PEER_PORT", peer);
  if (!fields.is_object()) {
    out[0] = "MESSAGE=" + message;
    return out;
  }
  // The names a journalctl query relies on first: a field that merely sanitizes to the same
  // name (say "Rule") never takes the place of the real one.
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& [k, v] : fields.items()) {
      std::string key;
      bool named = true;
      if (k == "cable_id" || k == "cable")
        key = "CABLE";
      else if (k == "rule")
        key = "RULE";
      else if (k == "decision" || (decision_record && k == "id"))
        key = "DECISION";
      else if (k == "port")
        key = port.empty() ? "PORT_NUMBER" : "";
      else if (k == "peer_port")
        key = peer.empty() ? "PEER_PORT_NUMBER" : "";
      else {
        named = false;
        key = journal_field_name(k);
        if (reserved(key)) key = "IBW_" + key;
      }
      if (pass == 0) message += " " + k + "=" + message_value(v);
      if (named == (pass == 0)) add(key, value_text(v));
    }
  out[0] = "MESSAGE=" + message;
  return out;
}

bool journal_stream_matches(const char* journal_stream, dev_t dev, ino_t ino) {
  if (!journal_stream) return false;
  unsigned long long d = 0, i = 0;
  char tail = 0;
  if (std::sscanf(journal_stream, "%llu:%llu%c", &d, &i, &tail) != 2) return false;
  return d == static_cast<unsigned long long>(dev) && i == static_cast<unsigned long long>(ino);
}

void log(LogLevel level, std::string_view msg, nlohmann::json fields) {
  if (static_cast<int>(level) < logger_detail::g_level) return;
  nlohmann::ordered_json line;
  line["ts"] = logger_detail::iso_now();
  line["level"] = logger_detail::level_name(level);
  line["msg"] = msg;
  for (auto& [k, v] : fields.items()) line[k] = v;
  std::string text = fabric::json_text(line) + "\n";
  std::lock_guard<std::mutex> lock(logger_detail::g_mutex);
  if (logger_detail::to_journal()) {
    if (logger_detail::send_journal(journal_fields(level, msg, fields))) return;
    text = "<" + std::to_string(journal_priority(level)) + ">" + text;  // journald's stream
  }
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

void log_event(const ingest::Event& e, int64_t id) {
  log(e.severity >= ingest::Severity::warning ? LogLevel::warning : LogLevel::info, "event",
      {{"id", id},
       {"source", ingest::source_name(e.source)},
       {"kind", e.kind},
       {"node", e.node},
       {"port", e.port},
       {"peer_node", e.peer_node},
       {"peer_port", e.peer_port},
       {"cable_id", e.cable_id},
       {"message", e.message}});
}

}  // namespace ibw::daemon

// Structured logging: one JSON object per line on stderr, with ts, level, msg and any extra
// fields. Thread-safe. Secrets must never be passed in.
//
// Under systemd with stderr connected to the journal (JOURNAL_STREAM names stderr's
// device:inode, as systemd.exec(5) documents) each record goes to journald natively instead
// (sd_journal_send): MESSAGE, PRIORITY (error 3, warning 4, info 6, debug 7),
// SYSLOG_IDENTIFIER=ibwarden and the record's fields as upper-case journal fields, the ones
// naming a port, cable, rule or decision as PORT= (NODE/PORT), CABLE=, RULE=, DECISION=, so
// `journalctl -u ibwarden CABLE=C-leaf003-18` finds a link's history. When journald's socket
// cannot be reached the JSON line goes to stderr with a "<N>" priority prefix, which
// journald's stream reader turns into the priority. Anywhere else output is the plain line.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ingest/event.h"

namespace ibw::daemon {

enum class LogLevel { debug = 0, info, warning, error };

void set_log_level(std::string_view level);  // "debug" | "info" | "warning" | "error"
void log(LogLevel level, std::string_view msg, nlohmann::json fields = nlohmann::json::object());
// One line per stored event: msg "event" with the event's fields.
void log_event(const ingest::Event& e, int64_t id);

// The journal side, pure (unit-tested in tests/unit/daemon/test_journal.cpp).
// Syslog priority of a level: error 3, warning 4, info 6, debug 7.
int journal_priority(LogLevel level);
// A field name as a journal field name: upper case, [A-Z0-9_] only (others become '_'), no
// leading '_' or digit, at most 64 characters; "" when nothing is left.
std::string journal_field_name(std::string_view name);
// One record as journal fields "KEY=value": MESSAGE (msg then the fields as key=value),
// PRIORITY, SYSLOG_IDENTIFIER=ibwarden, then the fields: cable_id -> CABLE, rule -> RULE,
// decision (and a "decision" record's id) -> DECISION, node + port -> PORT=node/port (a port
// already "node/port" as is; a port number without node -> PORT_NUMBER), peer_node +
// peer_port -> PEER_PORT likewise; the others by journal_field_name (names journald reserves
// get an IBW_ prefix). Null and empty values are left out; non-strings are JSON text.
std::vector<std::string> journal_fields(LogLevel level, std::string_view msg,
                                        const nlohmann::json& fields);
// JOURNAL_STREAM's value ("<dev>:<inode>", decimal) names this device and inode.
bool journal_stream_matches(const char* journal_stream, dev_t dev, ino_t ino);

}  // namespace ibw::daemon

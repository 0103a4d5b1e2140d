// Api: the JSON API under /api/v1 as one plain function, Response handle(const Request&),
// which the Beast server (web/server.h) calls for each request and unit tests call directly.
//
// Endpoints (GET needs the viewer role, the others operator; "force": true needs admin):
//   GET   /health                        status (worst source) and per-source health
//   GET   /fabric                        nodes, ports, links, down, disabled (with reasons),
//                                        ports by state, open orders by severity
//   GET   /ports?node&state&has_errors&limit&offset       a page of port JSON (CLI shape)
//   GET   /ports/{node}/{port}?since&max_points&counters   port, counter history, events,
//                                                          its order and decisions
//   POST  /ports/{node}/{port}/disable|enable  {"reason": "...", "force": false}
//   GET   /events?since&after_id&limit   paged by id, oldest first
//   GET   /decisions?since&after_id&limit
//   GET   /workorders?status&after_id&limit   GET /workorders/{id}
//   PATCH /workorders/{id}               {"status": "in_progress|resolved|open",
//                                         "assignee": "...", "note": "..."}
//   GET   /audit, POST /audit            the last cabling audit; run one now
//   GET   /stream                        Server-Sent Events (web/stream.h)
//   GET   /metrics                       Prometheus text (web/metrics.h); also served at the
//                                        root, GET /metrics, with the same role and body
//   GET   /whoami                        the caller's role, read-only mode, what it may do
//   GET   /suspects                      cursed routes: the last localization (localize JSON)
//   GET   /routes/health                 leaf x leaf loss matrix of the probe window
//   POST  /probes                        observations, JSONL or CSV body; 400 + "errors"
//   GET   /fabrics                       [{name, leader, lease_expires, sources}]: every
//                                        fabric in the store
// Every route takes ?fabric=NAME (default: this instance's own fabric, fabric.name; 404 for
// a fabric not in the store): store-backed routes read that fabric's rows. About another
// fabric, /health answers from its lease row; /suspects, /routes/health, /probes, /audit and
// port actions answer 409 naming its leader (port actions never act on another fabric).
// Outside /api (no token needed): "/" and "/ui/<file>", the dashboard (web/assets.h).
// {node} is a display name or 0xGUID, percent-encoded ("node0002%20mlx5_0"). Full contract,
// with every parameter and response field: web/README.md.
//
// Order of checks: malformed target 400; without tokens a Host that is not an address 421;
// failed logins of this token prefix from this address 429 (web/auth.h); authentication 401 (with
// WWW-Authenticate: Bearer); unknown path 404; wrong method 405 (with Allow); read-only mode 403
// {"error": "read-only mode"}; too weak a role 403; then the endpoint's own checks (400 naming the
// parameter or field, 404, 409, 413/415...). Store failures are 503, anything else 500
// with kInternalError (the details to ApiOptions::error_log).
//
// Authentication: "Authorization: Bearer TOKEN" against the TokenSet (web/auth.h). Without a
// tokens file, every request is an anonymous viewer and the API is read-only.
//
// Threading: handle() is thread-safe; the server calls it from its worker threads. Store
// reads use cached read-only connections (one per concurrent request, from
// ApiBackend::open_store); the list of ports is shared between requests for
// options.ports_cache_us at least and reloaded behind them (web/api_core.h, port_list()).
// The backend must outlive the Api, the Api every EventStream.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "web/auth.h"
#include "web/backend.h"
#include "web/guard.h"
#include "web/http.h"

namespace ibw::web {

struct ApiOptions {
  bool read_only = false;
  std::function<int64_t()> now_us;           // UTC microseconds; null = system clock
  int64_t ports_cache_us = 1'000'000;        // reuse the port list at least this long (0 = never)
  size_t max_idle_stores = 4;                // cached read-only store connections
  size_t stream_batch = 200;                 // SSE: events (and decisions) per poll at most
  int64_t stream_keepalive_us = 15'000'000;  // SSE: a comment after this much silence
  int64_t stream_tick_us = 500'000;          // SSE: the streams of a fabric share reads this long
  // Unknown tokens from one client address: after this many in a window, 429 until it ends.
  int max_auth_failures = 10;
  int64_t auth_window_us = 60'000'000;
  // Internal errors: the details are logged here; the client gets kInternalError only.
  std::function<void(const std::string&)> error_log;
};

// The body of every 500: what went wrong is in the daemon's log, not in the answer.
inline constexpr const char* kInternalError = "internal error (details are in the daemon log)";

// Without tokens (anonymous viewers) the Host header must be an IP address or localhost
// (with any port), so a page on another site cannot reach the API by rebinding its DNS name
// to 127.0.0.1 (answered 421). An empty Host (HTTP/1.0) is allowed.
bool host_allowed(std::string_view host);

class ApiCore;  // web/api_core.h

class Api {
 public:
  // tokens: nullopt when no tokens file is configured (anonymous viewers, read-only).
  Api(ApiBackend& backend, ApiOptions options, std::optional<TokenSet> tokens);
  ~Api();
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  Response handle(const Request& request);

  // New tokens and mode (SIGHUP); requests in progress finish with the old ones.
  void reconfigure(bool read_only, std::optional<TokenSet> tokens);
  // What the server's guards did (web/guard.h): the server counts, /metrics renders.
  GuardStats& guard();

 private:
  std::unique_ptr<ApiCore> core_;
};

}  // namespace ibw::web

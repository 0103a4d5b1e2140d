// Routing, authentication, authorization and error mapping of the web API (web/api.h).
#include <cctype>
#include <chrono>

#include "web/api_core.h"
#include "web/assets.h"
#include "web/compress.h"

namespace ibw::web {
namespace api_route_detail {

using Handler = Response (ApiCore::*)(Call&);

struct Route {
  const char* method;
  std::vector<std::string_view> pattern;  // segments after /api/v1; "*" captures one
  Handler handler;
  Role role;
  bool mutating;
  std::vector<std::string_view> query;  // accepted query parameters
};

const std::vector<Route>& routes() {
  static const std::vector<Route> kRoutes = {
      {"GET", {"health"}, &ApiCore::get_health, Role::viewer, false, {}},
      {"GET", {"fabric"}, &ApiCore::get_fabric, Role::viewer, false, {}},
      {"GET",
       {"ports"},
       &ApiCore::get_ports,
       Role::viewer,
       false,
       {"node", "state", "has_errors", "limit", "offset"}},
      {"GET",
       {"ports", "*", "*"},
       &ApiCore::get_port,
       Role::viewer,
       false,
       {"since", "max_points", "counters"}},
      {"POST", {"ports", "*", "*", "disable"}, &ApiCore::post_disable, Role::operator_, true, {}},
      {"POST", {"ports", "*", "*", "enable"}, &ApiCore::post_enable, Role::operator_, true, {}},
      {"GET",
       {"events"},
       &ApiCore::get_events,
       Role::viewer,
       false,
       {"since", "after_id", "limit"}},
      {"GET",
       {"decisions"},
       &ApiCore::get_decisions,
       Role::viewer,
       false,
       {"since", "after_id", "limit"}},
      {"GET",
       {"workorders"},
       &ApiCore::get_workorders,
       Role::viewer,
       false,
       {"status", "after_id", "limit"}},
      {"GET", {"workorders", "*"}, &ApiCore::get_workorder, Role::viewer, false, {}},
      {"GET", {"incidents"}, &ApiCore::get_incidents, Role::viewer, false, {"since"}},
      {"PATCH", {"workorders", "*"}, &ApiCore::patch_workorder, Role::operator_, true, {}},
      {"GET", {"audit"}, &ApiCore::get_audit, Role::viewer, false, {}},
      {"POST", {"audit"}, &ApiCore::post_audit, Role::operator_, true, {}},
      {"GET", {"stream"}, &ApiCore::get_stream, Role::viewer, false, {}},
      {"GET", {"metrics"}, &ApiCore::get_metrics, Role::viewer, false, {}},
      {"GET", {"whoami"}, &ApiCore::get_whoami, Role::viewer, false, {}},
      {"GET", {"suspects"}, &ApiCore::get_suspects, Role::viewer, false, {}},
      {"GET", {"congestion"}, &ApiCore::get_congestion, Role::viewer, false, {}},
      {"GET", {"routes", "health"}, &ApiCore::get_route_health, Role::viewer, false, {}},
      {"GET", {"routes", "check"}, &ApiCore::get_route_check, Role::viewer, false, {}},
      {"POST", {"probes"}, &ApiCore::post_probes, Role::operator_, true, {}},
      {"GET", {"fabrics"}, &ApiCore::get_fabrics, Role::viewer, false, {}},
  };
  return kRoutes;
}

bool matches(const Route& r, const std::vector<std::string>& segs, std::vector<std::string>* out) {
  if (segs.size() != r.pattern.size() + 2) return false;
  for (size_t i = 0; i < r.pattern.size(); ++i)
    if (r.pattern[i] != "*" && r.pattern[i] != segs[i + 2]) return false;
  if (out) {
    out->clear();
    for (size_t i = 0; i < r.pattern.size(); ++i)
      if (r.pattern[i] == "*") out->push_back(segs[i + 2]);
  }
  return true;
}

Response unauthorized(std::string_view message, bool invalid_token) {
  Response r = error_response(401, message);
  r.headers.emplace_back("WWW-Authenticate",
                         invalid_token ? "Bearer realm=\"ibwarden\", error=\"invalid_token\""
                                       : "Bearer realm=\"ibwarden\"");
  return r;
}

}  // namespace api_route_detail

bool host_allowed(std::string_view host) {
  if (host.empty()) return true;  // HTTP/1.0 without Host: no browser, no rebinding
  if (host.front() == '[') return host.find(']') != std::string_view::npos;  // IPv6 literal
  if (auto colon = host.rfind(':'); colon != std::string_view::npos) host = host.substr(0, colon);
  if (host == "localhost") return true;
  int dots = 0;
  for (char ch : host) {
    if (ch == '.')
      ++dots;
    else if (ch < '0' || ch > '9')
      return false;
  }
  return dots == 3;
}

Api::Api(ApiBackend& backend, ApiOptions options, std::optional<TokenSet> tokens)
    : core_(std::make_unique<ApiCore>(backend, std::move(options), std::move(tokens))) {}
Api::~Api() = default;
Response Api::handle(const Request& request) {
  return core_->handle(request);
}
void Api::reconfigure(bool read_only, std::optional<TokenSet> tokens) {
  core_->reconfigure(read_only, std::move(tokens));
}
GuardStats& Api::guard() {
  return core_->guard();
}

ApiCore::ApiCore(ApiBackend& backend, ApiOptions options, std::optional<TokenSet> tokens)
    : backend_(backend),
      options_(std::move(options)),
      auth_limiter_(options_.max_auth_failures, options_.auth_window_us),
      stores_(backend, options_.max_idle_stores) {
  reconfigure(options_.read_only, std::move(tokens));
}

void ApiCore::reconfigure(bool read_only, std::optional<TokenSet> tokens) {
  std::lock_guard<std::mutex> lock(mutex_);
  tokens_ = tokens ? std::make_shared<const TokenSet>(std::move(*tokens)) : nullptr;
  read_only_ = read_only || !tokens_;  // no tokens file: read-only
}

int64_t ApiCore::now_us() const {
  if (options_.now_us) return options_.now_us();
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// GET /whoami: the caller's role and whether changes are possible, for the dashboard to show
// only the controls that would work.
Response ApiCore::get_whoami(Call& c) {
  bool read_only;
  bool anonymous;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    read_only = read_only_;
    anonymous = !tokens_;
  }
  nlohmann::ordered_json j;
  j["role"] = role_name(c.who.role);
  j["read_only"] = read_only;
  j["authenticated"] = !anonymous;
  j["can_operate"] = !read_only && c.who.role >= Role::operator_;
  j["can_force"] = !read_only && c.who.role >= Role::admin;
  return json_response(200, j);
}

namespace api_route_detail {
// The token after "Bearer " (the scheme is case-insensitive), blanks trimmed; "" when the
// request has no bearer token.
std::string_view bearer_token(const Request& req, std::string& auth) {
  auth = req.header("authorization");
  std::string scheme = auth.substr(0, 7);
  for (char& ch : scheme) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (scheme != "bearer ") return {};
  std::string_view token = std::string_view(auth).substr(7);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return token;
}
}  // namespace api_route_detail

Principal ApiCore::authenticate(std::string_view token,
                                const std::shared_ptr<const TokenSet>& tokens) const {
  if (!tokens) return {Role::viewer, "anonymous"};
  if (token.empty()) return {Role::none, ""};
  auto m = tokens->find(token);
  if (!m) return {Role::none, "invalid"};
  return {m->role, std::string(role_name(m->role)) + "@tokens:" + std::to_string(m->line)};
}

Response ApiCore::handle(const Request& req) {
  using namespace api_route_detail;
  if (req.method == "HEAD") {  // as GET, headers only (RFC 9110 9.3.2); no live stream
    Request get = req;
    get.method = "GET";
    Response r = handle(get);
    r.stream.reset();
    r.head = true;
    return r;
  }
  std::shared_ptr<const TokenSet> tokens;
  bool read_only;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tokens = tokens_;
    read_only = read_only_;
  }
  Principal who;
  Response res;
  std::optional<Call> call;
  try {
    Target target = parse_target(req.target);
    // GET /metrics at the root, where Prometheus scrapes by default, is /api/v1/metrics: the
    // same route (role, methods, handler), not a second code path.
    if (target.segments.size() == 1 && target.segments[0] == "metrics")
      target.segments = {"api", "v1", "metrics"};
    if (!tokens && !host_allowed(req.header("host"))) {  // DNS rebinding: see host_allowed()
      guard_.add(GuardStats::host_refused);
      res = error_response(421,
                           "Host: not an address of this server (without web.tokens_file "
                           "only IP addresses and localhost are accepted)");
      res.actor = "anonymous";
      return res;
    }
    if (auto asset = serve_asset(req.method, target.segments, req)) {  // the dashboard
      asset->actor = "anonymous";
      return *asset;
    }
    std::string auth;
    std::string_view token = bearer_token(req, auth);
    int64_t wait_s =
        tokens && !token.empty() ? auth_limiter_.blocked_for(req.peer, token, now_us()) : 0;
    if (wait_s) {
      guard_.add(GuardStats::auth_limited);
      res = error_response(429,
                           "too many failed authentications with this token from this "
                           "address; retry in " +
                               std::to_string(wait_s) + " s");
      res.headers.emplace_back("Retry-After", std::to_string(wait_s));
      res.actor = "unauthenticated";
      return res;
    }
    who = authenticate(token, tokens);
    if (tokens && who.role != Role::none) auth_limiter_.succeeded(req.peer, token, now_us());
    if (who.role == Role::none) {
      if (!who.actor.empty()) auth_limiter_.failed(req.peer, token, now_us());
      res = who.actor.empty() ? unauthorized("a bearer token is required", false)
                              : unauthorized("unknown token", true);
      who.actor = "unauthenticated";
      res.actor = who.actor;
      return res;
    }
    const auto& segs = target.segments;
    if (segs.size() < 3 || segs[0] != "api" || segs[1] != "v1") throw ApiError(404, "not found");
    const Route* route = nullptr;
    std::string allow;
    std::vector<std::string> params;
    for (const Route& r : routes()) {
      if (!matches(r, segs, nullptr)) continue;
      if (r.method == req.method) {
        route = &r;
        matches(r, segs, &params);
        break;
      }
      if (allow.find(r.method) == std::string::npos)
        allow += (allow.empty() ? "" : ", ") + std::string(r.method);
    }
    if (!route && allow.empty()) throw ApiError(404, "not found");
    if (auto at = allow.find("GET"); at != std::string::npos) allow.insert(at + 3, ", HEAD");
    if (!route) {
      res = error_response(405, "method " + req.method + " not allowed (allowed: " + allow + ")");
      res.headers.emplace_back("Allow", allow);
    } else if (route->mutating && read_only) {
      res = error_response(403, "read-only mode");
    } else if (who.role < route->role) {
      res =
          error_response(403, "this needs the " + std::string(role_name(route->role)) +
                                  " role (the token has " + std::string(role_name(who.role)) + ")");
    } else {
      std::vector<std::string_view> allowed = route->query;
      allowed.push_back("fabric");  // every route: whose rows (default: the own fabric)
      call.emplace(Call{req, Query(target.query, allowed), std::move(params), who, now_us()});
      resolve_fabric(*call);
      res = (this->*(route->handler))(*call);
    }
  } catch (const ApiError& e) {
    res = error_response(e.status(), e.what());
  } catch (const store::StoreError& e) {
    if (call && call->lease) call->lease->discard();
    res = error_response(503, std::string("store: ") + e.what());
  } catch (const std::exception& e) {  // the details go to the log, never to the client
    if (options_.error_log)
      options_.error_log("web: internal error on " + req.method + " " +
                         req.target.substr(0, req.target.find('?')) + ": " + e.what());
    res = error_response(500, kInternalError);
  }
  res.actor = who.actor;
  bool encoded = false;  // /ports compresses (and caches) its own pages
  for (const auto& [name, value] : res.headers) encoded = encoded || name == "Content-Encoding";
  if (res.status == 200 && !res.stream && !encoded && res.body.size() >= kMinGzipBytes &&
      accepts_gzip(req.header("accept-encoding"))) {
    if (auto z = gzip(res.body)) {
      res.body = std::move(*z);
      res.headers.emplace_back("Content-Encoding", "gzip");
      res.headers.emplace_back("Vary", "Accept-Encoding");
    }
  }
  return res;
}

}  // namespace ibw::web

// Cursed routes over the API: the last localization (GET /suspects), the leaf x leaf loss
// matrix (GET /routes/health) and external observations posted by operators (POST /probes).
// The backend (daemon/web_backend) owns the probe window; these handlers only map it to HTTP.
#include "web/api_core.h"

namespace ibw::web {

ProbeBackend& ApiCore::probes() {
  ProbeBackend* p = backend_.probes();
  if (!p) throw ApiError(404, ApiBackend::kNoProbing);
  return *p;
}

// GET /suspects: the `ibwarden localize --format json` object of the last round, plus "time",
// "rounds" and "posted". 404 when probing is off or nothing was localized yet.
Response ApiCore::get_suspects(Call& c) {
  only_own_fabric(c);
  return json_response(200, ordered(probes().suspects()));
}

// GET /routes/health: {"switches", "guids", "sent", "lost", "loss", "predicted", "time",
// "rounds"}, rows the sources.
Response ApiCore::get_route_health(Call& c) {
  only_own_fabric(c);
  return json_response(200, ordered(probes().route_health()));
}

// POST /probes: a JSONL or CSV body (Content-Type application/x-ndjson, application/jsonl,
// application/json, text/csv or text/plain). Every line is validated before anything is kept:
// 400 with "errors" (one "POST /api/v1/probes:LINE: field: message" each) otherwise; 429 with
// Retry-After past the intake quota (probes.post_*_per_minute, probes.max_posted).
Response ApiCore::post_probes(Call& c) {
  only_own_fabric(c);
  std::string type = c.request.header("content-type");
  type = type.substr(0, type.find(';'));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  static const char* kTypes[] = {"application/x-ndjson", "application/jsonl", "application/json",
                                 "text/csv", "text/plain"};
  bool known = false;
  for (const char* t : kTypes) known = known || type == t;
  if (!known)
    throw ApiError(415,
                   "Content-Type must be application/x-ndjson, application/jsonl, "
                   "application/json, text/csv or text/plain (JSONL or CSV with a header)");
  if (c.request.body.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ApiError(400, "empty body: send observations, one per line");
  try {
    return json_response(
        200, ordered(probes().submit_probes(c.request.body, c.who.actor, c.request.peer)));
  } catch (const RetryLater& e) {  // past the intake quota: nothing was kept
    Response r = error_response(e.status(), e.what());
    r.headers.emplace_back("Retry-After", std::to_string(e.retry_after_s()));
    return r;
  } catch (const fabric::InputError& e) {
    nlohmann::ordered_json j;
    j["error"] = "bad observations: nothing was kept";
    j["errors"] = nlohmann::ordered_json::array();
    for (const auto& d : e.diagnostics()) j["errors"].push_back(fabric::format_diagnostic(d));
    return json_response(400, j);
  }
}

}  // namespace ibw::web

// UfmClient: the UFM REST API (and UFM Telemetry) over libcurl, with authentication, TLS,
// timeouts, retries with exponential backoff, a circuit breaker and visible health.
// Facts from ../shared/reference/ufm-api.md §1-§3:
//  - API variants [H]: v1 = "/ufmRest" + HTTP Basic on every call; v2 = "/ufmRestV2" with a
//    session cookie from `POST <base>/dologin` (form fields httpd_username, httpd_password);
//    v3 = "/ufmRestV3" + header "Authorization: Basic <access token>" (the token itself, not
//    base64 user:password). `plain` adds no prefix and no credentials (UFM Telemetry on
//    :9001/:9002, which serves http without authentication).
//  - The same resource paths work under every prefix [H]. Paths below are relative to it.
//  - POST /actions answers 202 Accepted with the job in `Location: .../jobs/<id>` [H]; a job
//    is polled with GET /jobs/<id> until its Status leaves Running [H]; an unknown job id
//    gives an empty list [H]. The action body for port disable/enable is [M] (§8.1).
//  - PUT /app/unhealthy_ports {ports, ports_policy: UNHEALTHY|HEALTHY, action} isolates or
//    clears ports [H]. POST /app/events/external_event {event_id 551-554, description,
//    object_name, otype} posts an audit event [H fields, M semantics].
//
// Behaviour:
//  - TLS verification is on unless verify_tls is false; ca_file replaces the system bundle.
//    No proxy (environment variables are ignored), no redirects, http and https only.
//  - Credentials go to libcurl or a header only. They never appear in an error string or
//    health (errors name the URL without user:password, and any echo of a secret is masked).
//  - A call makes up to max_attempts attempts. Retried: transport errors, timeouts, HTTP 5xx
//    and 429, and answers the caller's validator rejects (malformed JSON). Not retried: other
//    4xx. POST is retried only when the connection was never made (it is not idempotent).
//    Waits between attempts: backoff_initial_us, doubling, capped at backoff_max_us.
//  - v2: logs in on the first call and again once when a call gets 401.
//  - The breaker (ufm_breaker.h) counts a call as failed when it ends in a retryable failure
//    or in 401/403; a refused call returns at once with `rejected` set.
// Thread-safe: calls are serialised; health() may be read from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/clock.h"
#include "ingest/ufm/breaker.h"
#include "ingest/ufm/events.h"
#include "ingest/ufm/resources.h"
#include "ingest/ufm/telemetry.h"

namespace ibw::ingest {

enum class UfmApi : uint8_t { v1, v2, v3, plain };
std::string_view ufm_api_prefix(UfmApi api);              // "/ufmRest", "/ufmRestV2", ...
std::optional<UfmApi> parse_ufm_api(std::string_view s);  // "v1", "v2", "v3", "plain"

struct UfmCredentials {
  std::string user;      // v1, v2
  std::string password;  // v1, v2
  std::string token;     // v3; empty: one is fetched with user/password (GET, else POST
                         // /ufmRest/app/tokens) and kept in memory only
};

struct UfmClientOptions {
  std::string url;  // "https://ufm.example.com" (a path after the host is kept before the prefix)
  UfmApi api = UfmApi::v3;
  UfmCredentials credentials;
  bool verify_tls = true;
  std::string ca_file;  // PEM bundle; empty = the system's
  long connect_timeout_ms = 5000;
  long timeout_ms = 30000;  // whole request
  int max_attempts = 3;
  int64_t backoff_initial_us = 500'000;
  int64_t backoff_max_us = 8'000'000;
  BreakerOptions breaker;
  size_t max_body_bytes = size_t{512} << 20;
  std::string login_path = "/dologin";  // v2
};

struct UfmResponse {
  bool ok = false;  // 2xx (and accepted by the validator, when there is one)
  long status = 0;  // HTTP status of the last attempt; 0 when no answer came
  std::string body;
  std::string location;  // Location header
  std::string error;     // empty when ok; never holds credentials
  int attempts = 0;
  bool rejected = false;  // refused by the open circuit breaker (no attempt made)
};

// A GET whose answer was parsed.
template <typename T>
struct UfmFetched {
  UfmResponse response;
  UfmParsed<T> parsed;
  bool ok() const { return response.ok && parsed.ok; }
};

struct UfmTelemetryFetched {
  UfmResponse response;  // body empty: the answer is parsed as it arrives
  TelemetryParse parsed;
  int64_t parse_us = 0;  // time parsing the body as it arrived (the rest: the transfer)
  size_t bytes = 0;      // body size (never held whole: parsed as it arrives)
  bool ok() const { return response.ok && parsed.ok; }
};

// Body of POST /actions (ufm-api.md §3.6).
struct UfmAction {
  std::string action;                   // "disable", "enable", "reset", ...
  std::vector<std::string> object_ids;  // system GUIDs (identifier "id") or IPs ("ip")
  std::string object_type = "System";
  std::string identifier = "id";
  std::vector<std::pair<std::string, std::string>> params;  // {"port_id", "<guid>_<num>"}
  std::string description;
};
// A port action as the docs suggest [M]: object_ids = [system GUID as 16 hex digits],
// params = {port_id: port name}.
UfmAction ufm_port_action(std::string action, uint64_t system_guid, std::string port_name,
                          std::string description);
std::string ufm_action_json(const UfmAction& action);

enum class UfmJobOutcome : uint8_t { completed, completed_with_warnings, failed, timed_out, error };
std::string_view job_outcome_name(UfmJobOutcome o);
// "Completed" -> completed, "Completed With Warnings" -> completed_with_warnings, "Completed
// With Errors", "Aborted", "Failed*", "Error*" -> failed; nullopt (still running) otherwise.
std::optional<UfmJobOutcome> ufm_job_outcome(std::string_view status);

struct UfmJobWait {
  int64_t timeout_us = 120'000'000;
  int64_t poll_interval_us = 1'000'000;
  int not_found_limit = 3;  // polls answering "no such job" before giving up
};

struct UfmActionResult {
  UfmJobOutcome outcome = UfmJobOutcome::error;
  std::string job_id;
  std::optional<UfmJob> job;  // the last state read
  std::string error;          // when not completed
  int polls = 0;
};

// The consumer of a 2xx answer read as it arrives, for a list too large to hold whole (the
// fabric's ports and links); the answer's size is bounded by max_body_bytes all the same.
class UfmBodyStream {
 public:
  virtual ~UfmBodyStream() = default;
  virtual void begin() = 0;  // an attempt starts: forget what an earlier one fed
  // The next bytes of the body; false when it is unusable already (the transfer stops, and
  // the attempt fails as a rejected answer: retried).
  virtual bool feed(std::string_view bytes) = 0;
  virtual std::string end() = 0;  // the body is complete: "" when usable, else why not
};

// Takes the records of GET /resources/ports as they are read, in batches, instead of the
// result keeping them: for a list too large to hold beside what is made of it.
class UfmPortsSink {
 public:
  virtual ~UfmPortsSink() = default;
  virtual void begin() = 0;  // an attempt starts: forget the records an earlier one gave
  virtual void take(std::vector<UfmPort>& ports) = 0;  // the next records, in list order
};

class UfmClient {
 public:
  using Sleeper = std::function<void(int64_t us)>;
  // The clock drives the breaker, health times and job timeouts; sleep waits between retries
  // and job polls (default: really sleep). Throws std::invalid_argument for a URL that is
  // not http(s), std::runtime_error when libcurl cannot start.
  UfmClient(UfmClientOptions options, const Clock& clock, Sleeper sleep = {});
  ~UfmClient();
  UfmClient(const UfmClient&) = delete;
  UfmClient& operator=(const UfmClient&) = delete;

  // Raw calls. path is relative to the API prefix and may carry a query ("/app/events").
  // validate(body) returns "" to accept a 2xx answer, or why it is unusable (retried).
  using Validator = std::function<std::string(const std::string& body)>;
  UfmResponse get(const std::string& path, const Validator& validate = {});
  // A GET whose 2xx body goes to stream as it arrives (the response's body stays empty);
  // retried as the validating get() is, stream.begin() starting each attempt.
  UfmResponse get(const std::string& path, UfmBodyStream& stream);
  UfmResponse post(const std::string& path, const std::string& json_body);
  UfmResponse put(const std::string& path, const std::string& json_body);

  // Typed GETs (ufm_events.h, ufm_resources.h, ufm_telemetry.h).
  UfmFetched<UfmEvent> events(const UfmTimeContext& tc, const std::string& query = {});
  UfmFetched<UfmAlarm> alarms(const UfmTimeContext& tc);
  UfmFetched<UfmPort> ports(const std::string& query = {});  // e.g. "active=true"
  // The same list handed to sink as it is read; the result's items stay empty.
  UfmFetched<UfmPort> ports(UfmPortsSink& sink);
  UfmFetched<UfmLink> links();
  UfmFetched<UfmUnhealthyPort> unhealthy_ports();
  // For a `plain` client on a telemetry endpoint: path such as "/csv/metrics".
  // expected_samples: see TelemetryStreamParser (the last answer's count, say).
  UfmTelemetryFetched telemetry(const std::string& path, size_t expected_samples = 0);

  // POST /actions, then poll the job until it ends or wait.timeout_us passes.
  UfmActionResult run_action(const UfmAction& action, const UfmJobWait& wait = {});
  // PUT /app/unhealthy_ports: healthy=false isolates (action "isolate" or "no_discover"),
  // healthy=true clears.
  UfmResponse set_ports_health(const std::vector<std::string>& port_names, bool healthy,
                               std::string_view action = "isolate");
  // POST /app/events/external_event; object_name/otype attach it to an object when given.
  UfmResponse post_external_event(int event_id, const std::string& description,
                                  const std::string& object_name = {},
                                  const std::string& otype = {});

  ServiceHealth health() const;
  // base URL + prefix + path, without credentials (for messages).
  std::string url_of(const std::string& path) const;

 private:
  struct Transport;
  UfmResponse call(const char* method, const std::string& path, const std::string* body,
                   const Validator* validate, UfmBodyStream* stream = nullptr);
  // v3 without a configured token: an access token for user/password (D-TK) into the
  // transport; on failure sets r.error and whether it is worth retrying.
  void fetch_token(Transport& t, UfmResponse& r, bool& retryable, bool& auth_failed);
  std::string scrub(std::string text) const;

  UfmClientOptions options_;
  const Clock& clock_;
  Sleeper sleep_;
  std::string base_;  // url without a trailing '/'
  std::unique_ptr<Transport> transport_;
  std::mutex call_mutex_;             // one call at a time on the curl handle
  mutable std::mutex breaker_mutex_;  // guards breaker_
  CircuitBreaker breaker_;
};

}  // namespace ibw::ingest

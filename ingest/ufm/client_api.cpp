// UfmClient typed calls: resources, telemetry, actions and jobs, isolation, external events.
// See ufm_client.h; the transport is in ufm_client.cpp.
#include <cctype>
#include <chrono>
#include <cstdio>
#include <optional>
#include <regex>
#include <type_traits>

#include "fabric/json_text.h"
#include "ingest/text.h"
#include "ingest/ufm/client.h"

namespace ibw::ingest {
namespace ufm_client_api_detail {

template <typename T, typename Parse>
UfmFetched<T> fetch(UfmClient& client, const std::string& path, Parse parse) {
  UfmFetched<T> out;
  out.response = client.get(path, [&](const std::string& body) {
    out.parsed = parse(body);
    return out.parsed.ok ? std::string() : out.parsed.error;
  });
  if (!out.response.ok) out.parsed.ok = false;
  return out;
}

// A list read as it arrives (ports, links): one ListStream per attempt.
// (with a sink, the records go to it as they are read, and parsed.items stays empty).
template <typename T, typename Sink = void>
class ListBody : public UfmBodyStream {
 public:
  using Make = ufm_json_detail::ListStream<T> (*)();
  explicit ListBody(Make make, Sink* sink = nullptr) : make_(make), sink_(sink) {}
  void begin() override {
    list_.emplace(make_());
    parsed = {};
    if constexpr (!std::is_void_v<Sink>) sink_->begin();
  }
  bool feed(std::string_view bytes) override {
    bool ok = list_->feed(bytes);
    if constexpr (!std::is_void_v<Sink>) {
      std::vector<T> read = list_->take_items();
      if (ok && !read.empty()) sink_->take(read);
    }
    return ok;
  }
  std::string end() override {
    parsed = list_->finish();
    list_.reset();
    if constexpr (!std::is_void_v<Sink>) {
      if (parsed.ok && !parsed.items.empty()) sink_->take(parsed.items);
      parsed.items.clear();
    }
    return parsed.ok ? std::string() : parsed.error;
  }
  UfmParsed<T> parsed;

 private:
  Make make_;
  Sink* sink_;
  std::optional<ufm_json_detail::ListStream<T>> list_;
};

template <typename T, typename Sink = void>
UfmFetched<T> fetch_streamed(UfmClient& client, const std::string& path,
                             typename ListBody<T, Sink>::Make make, Sink* sink = nullptr) {
  UfmFetched<T> out;
  ListBody<T, Sink> body(make, sink);
  out.response = client.get(path, body);
  out.parsed = std::move(body.parsed);
  if (!out.response.ok) out.parsed.ok = false;
  return out;
}

// "<...>/jobs/<id>" -> id.
std::string job_id_of(const std::string& location) {
  static const std::regex kJob("/jobs/([0-9]+)");
  std::smatch m;
  if (std::regex_search(location, m, kJob)) return m[1];
  return {};
}

}  // namespace ufm_client_api_detail

std::string_view ufm_api_prefix(UfmApi api) {
  switch (api) {
    case UfmApi::v1:
      return "/ufmRest";
    case UfmApi::v2:
      return "/ufmRestV2";
    case UfmApi::v3:
      return "/ufmRestV3";
    case UfmApi::plain:
      return "";
  }
  return "";
}

std::optional<UfmApi> parse_ufm_api(std::string_view s) {
  if (s == "v1") return UfmApi::v1;
  if (s == "v2") return UfmApi::v2;
  if (s == "v3") return UfmApi::v3;
  if (s == "plain") return UfmApi::plain;
  return std::nullopt;
}

UfmAction ufm_port_action(std::string action, uint64_t system_guid, std::string port_name,
                          std::string description) {
  UfmAction a;
  a.action = std::move(action);
  char guid[24];
  std::snprintf(guid, sizeof guid, "%016llx", static_cast<unsigned long long>(system_guid));
  a.object_ids = {guid};
  a.params = {{"port_id", std::move(port_name)}};
  a.description = std::move(description);
  return a;
}

std::string ufm_action_json(const UfmAction& action) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [k, v] : action.params) params[k] = v;
  nlohmann::json body = {{"action", action.action},
                         {"object_ids", action.object_ids},
                         {"object_type", action.object_type},
                         {"identifier", action.identifier},
                         {"params", params},
                         {"description", action.description}};
  return fabric::json_text(body);
}

std::string_view job_outcome_name(UfmJobOutcome o) {
  switch (o) {
    case UfmJobOutcome::completed:
      return "completed";
    case UfmJobOutcome::completed_with_warnings:
      return "completed_with_warnings";
    case UfmJobOutcome::failed:
      return "failed";
    case UfmJobOutcome::timed_out:
      return "timed_out";
    case UfmJobOutcome::error:
      return "error";
  }
  return "?";
}

std::optional<UfmJobOutcome> ufm_job_outcome(std::string_view status) {
  std::string s = ascii_lower(status);
  if (s == "completed") return UfmJobOutcome::completed;
  if (s == "completed with warnings") return UfmJobOutcome::completed_with_warnings;
  if (s.rfind("completed", 0) == 0 || s.rfind("aborted", 0) == 0 || s.rfind("fail", 0) == 0 ||
      s.rfind("error", 0) == 0)
    return UfmJobOutcome::failed;
  return std::nullopt;
}

UfmFetched<UfmEvent> UfmClient::events(const UfmTimeContext& tc, const std::string& query) {
  return ufm_client_api_detail::fetch<UfmEvent>(
      *this, query.empty() ? "/app/events" : "/app/events?" + query,
      [&](const std::string& body) { return parse_ufm_events(body, tc); });
}

UfmFetched<UfmAlarm> UfmClient::alarms(const UfmTimeContext& tc) {
  return ufm_client_api_detail::fetch<UfmAlarm>(
      *this, "/app/alarms", [&](const std::string& body) { return parse_ufm_alarms(body, tc); });
}

UfmFetched<UfmPort> UfmClient::ports(const std::string& query) {
  return ufm_client_api_detail::fetch_streamed<UfmPort>(
      *this, query.empty() ? "/resources/ports" : "/resources/ports?" + query, &ufm_ports_stream);
}

UfmFetched<UfmPort> UfmClient::ports(UfmPortsSink& sink) {
  return ufm_client_api_detail::fetch_streamed<UfmPort, UfmPortsSink>(*this, "/resources/ports",
                                                                      &ufm_ports_stream, &sink);
}

UfmFetched<UfmLink> UfmClient::links() {
  return ufm_client_api_detail::fetch_streamed<UfmLink>(*this, "/resources/links",
                                                        &ufm_links_stream);
}

UfmFetched<UfmUnhealthyPort> UfmClient::unhealthy_ports() {
  return ufm_client_api_detail::fetch<UfmUnhealthyPort>(
      *this, "/app/unhealthy_ports",
      [](const std::string& body) { return parse_ufm_unhealthy_ports(body); });
}

namespace ufm_client_api_detail {

// The telemetry answer parsed as it arrives (TelemetryStreamParser), timing the parse.
class TelemetryBody : public UfmBodyStream {
 public:
  TelemetryBody(const Clock& clock, UfmTelemetryFetched& out, size_t expected_samples)
      : clock_(clock), out_(out), expected_samples_(expected_samples) {}
  void begin() override {
    parser_.emplace(clock_.now_us(), expected_samples_);
    out_.parse_us = 0;
    ended_ = false;
  }
  bool feed(std::string_view bytes) override {
    timed([&] { parser_->feed(bytes); });
    return true;
  }
  std::string end() override {
    if (!ended_) {
      timed([&] { out_.parsed = parser_->finish(); });
      out_.bytes = parser_->bytes();
      ended_ = true;
    }
    return out_.parsed.ok ? std::string() : out_.parsed.error;
  }

 private:
  template <typename F>
  void timed(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    out_.parse_us +=
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0)
            .count();
  }
  const Clock& clock_;
  UfmTelemetryFetched& out_;
  size_t expected_samples_;
  std::optional<TelemetryStreamParser> parser_;
  bool ended_ = false;
};

}  // namespace ufm_client_api_detail

UfmTelemetryFetched UfmClient::telemetry(const std::string& path, size_t expected_samples) {
  UfmTelemetryFetched out;
  ufm_client_api_detail::TelemetryBody body(clock_, out, expected_samples);
  out.response = get(path, body);
  if (!out.response.ok) out.parsed.ok = false;
  return out;
}

UfmActionResult UfmClient::run_action(const UfmAction& action, const UfmJobWait& wait) {
  UfmActionResult result;
  UfmResponse posted = post("/actions", ufm_action_json(action));
  if (!posted.ok) {
    result.error = posted.error;
    return result;
  }
  result.job_id = ufm_client_api_detail::job_id_of(posted.location);
  if (result.job_id.empty()) {
    result.error = "POST " + url_of("/actions") + ": HTTP " + std::to_string(posted.status) +
                   " without a job Location (got '" + posted.location + "')";
    return result;
  }
  const int64_t deadline = clock_.now_us() + wait.timeout_us;
  int not_found = 0;
  for (;;) {
    UfmResponse r = get("/jobs/" + result.job_id);
    ++result.polls;
    if (r.ok) {
      result.job = parse_ufm_job(r.body);
      if (!result.job) {
        if (++not_found >= wait.not_found_limit) {
          result.error = "job " + result.job_id + " not found";
          return result;
        }
      } else if (auto outcome = ufm_job_outcome(result.job->status)) {
        result.outcome = *outcome;
        if (*outcome == UfmJobOutcome::failed)
          result.error = "job " + result.job_id + " " + result.job->status + ": " +
                         result.job->summary.substr(0, 200);
        return result;
      }
    }
    if (clock_.now_us() >= deadline) {
      result.outcome = UfmJobOutcome::timed_out;
      result.error = "job " + result.job_id + " still " +
                     (result.job ? result.job->status : std::string("unknown")) + " after " +
                     std::to_string(wait.timeout_us / 1000) + " ms" +
                     (r.ok ? std::string() : " (last poll: " + r.error + ")");
      return result;
    }
    sleep_(wait.poll_interval_us);
  }
}

UfmResponse UfmClient::set_ports_health(const std::vector<std::string>& port_names, bool healthy,
                                        std::string_view action) {
  nlohmann::json body = {{"ports", port_names},
                         {"ports_policy", healthy ? "HEALTHY" : "UNHEALTHY"}};
  if (!healthy) body["action"] = std::string(action);
  return put("/app/unhealthy_ports", fabric::json_text(body));
}

UfmResponse UfmClient::post_external_event(int event_id, const std::string& description,
                                           const std::string& object_name,
                                           const std::string& otype) {
  nlohmann::json body = {{"event_id", event_id}, {"description", description}};
  if (!object_name.empty()) body["object_name"] = object_name;
  if (!otype.empty()) body["otype"] = otype;
  return post("/app/events/external_event", fabric::json_text(body));
}

}  // namespace ibw::ingest

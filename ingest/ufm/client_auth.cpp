// UfmClient authentication: v3 access tokens (listed, else created) and the judging of login and
// token answers (ingest/ufm/client_detail.h).
#include <curl/curl.h>

#include <nlohmann/json.hpp>

#include <string>

#include "ingest/ufm/client.h"
#include "ingest/ufm/client_detail.h"

namespace ibw::ingest {
namespace ufm_client_detail {

// A transport error, 5xx or 429 of an authentication exchange (v2 login, v3 token fetch):
// sets r's error (and status) and retryable, and returns true. False when the exchange got
// a final answer, which the caller judges.
bool auth_transport_failed(const Exchange& ex, const std::string& at, UfmResponse& r,
                           bool& retryable) {
  if (ex.code != CURLE_OK) {
    r.error = at + ": " + ex.curl_error;
  } else if (ex.status >= 500 || ex.status == 429) {
    r.status = ex.status;
    r.error = at + ": HTTP " + std::to_string(ex.status);
  } else {
    return false;
  }
  retryable = true;
  return true;
}

// The first access token in a GET/POST /app/tokens answer (a list or one object) that is not
// revoked nor expired (issued_at + expires_in, epoch seconds, when both are given); "" if none.
std::string usable_token(const std::string& body, int64_t now_s) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded()) return "";
  if (j.is_object()) j = nlohmann::json::array({j});
  if (!j.is_array()) return "";
  for (const auto& t : j) {
    if (!t.is_object() || !t.contains("access_token") || !t["access_token"].is_string()) continue;
    if (auto rv = t.find("revoked"); rv != t.end() && rv->is_boolean() && rv->get<bool>()) continue;
    const auto issued = t.find("issued_at"), expires = t.find("expires_in");
    if (issued != t.end() && expires != t.end() && issued->is_number() && expires->is_number() &&
        issued->get<double>() + expires->get<double>() <= static_cast<double>(now_s))
      continue;
    std::string token = t["access_token"];
    if (!token.empty()) return token;
  }
  return "";
}

}  // namespace ufm_client_detail

void UfmClient::fetch_token(Transport& t, UfmResponse& r, bool& retryable, bool& auth_failed) {
  namespace d = ufm_client_detail;
  const std::string url = base_ + "/ufmRest/app/tokens";
  curl_easy_setopt(t.curl, CURLOPT_HTTPAUTH, long{CURLAUTH_BASIC});
  curl_easy_setopt(t.curl, CURLOPT_USERNAME, options_.credentials.user.c_str());
  curl_easy_setopt(t.curl, CURLOPT_PASSWORD, options_.credentials.password.c_str());
  d::Slist headers;
  headers.add("Accept: application/json");
  headers.add("Expect:");
  auto answered = [&](const d::Exchange& ex, const char* what) {
    const std::string at = std::string(what) + " " + d::redact_url(url);
    if (d::auth_transport_failed(ex, at, r, retryable)) {
    } else if (ex.status < 200 || ex.status > 299) {
      r.status = ex.status;
      r.error = at + ": HTTP " + std::to_string(ex.status) +
                (ex.status == 401   ? " (api v3 without token_file: user or password rejected)"
                 : ex.status == 403 ? " (api v3 without token_file: creating a token needs "
                                      "the system_admin role)"
                                    : "");
      auth_failed = true;  // wrong credentials or role: not retried
    }
    return r.error.empty();
  };
  const int64_t now_s = clock_.now_us() / 1'000'000;
  d::Exchange list = t.perform("GET", url, nullptr, headers, options_.max_body_bytes);
  std::string token;
  if (answered(list, "token list")) token = d::usable_token(list.sink.body, now_s);
  if (r.error.empty() && token.empty()) {
    const std::string none;
    d::Exchange made = t.perform("POST", url, &none, headers, options_.max_body_bytes);
    if (answered(made, "token create")) {
      token = d::usable_token(made.sink.body, now_s);
      if (token.empty()) {
        r.error = "token create " + d::redact_url(url) + ": no access_token in the answer";
        retryable = true;
      }
    }
  }
  curl_easy_setopt(t.curl, CURLOPT_USERNAME, nullptr);
  curl_easy_setopt(t.curl, CURLOPT_PASSWORD, nullptr);
  if (!r.error.empty()) return;
  t.token = std::move(token);
  t.fetched = true;
}

}  // namespace ibw::ingest

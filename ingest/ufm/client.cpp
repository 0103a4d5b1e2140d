// UfmClient transport: libcurl, v2 login, retries and the breaker; see ufm_client.h.
// The typed calls (events, actions, ...) are in ufm_client_api.cpp, v3 tokens in client_auth.cpp.
#include "ingest/ufm/client.h"

#include "ingest/curl_util.h"
#include "ingest/ufm/client_detail.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace ibw::ingest {
namespace ufm_client_detail {

constexpr size_t kMaxSnippet = 200;  // characters of an error answer kept in the error

using curl_util::global_init;

std::string one_line(std::string_view text) {
  return curl_util::one_line(text, kMaxSnippet);
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t n = size * count;
  if (sink->received + n > sink->max) {
    sink->too_large = true;
    return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
  }
  sink->received += n;
  if (sink->stream) {
    long status = 0;
    curl_easy_getinfo(sink->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 200 && status <= 299) {
      if (sink->stream->feed(std::string_view(data, n))) return n;
      sink->stream_failed = true;
      return 0;  // unusable already: stop reading it
    }
  }
  if (sink->body.empty()) {  // room for the whole answer at once: no regrowth copies
    curl_off_t length = -1;  // (the telemetry CSV is tens of megabytes; -1 when not given)
    curl_easy_getinfo(sink->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    if (length > 0 && static_cast<size_t>(length) <= sink->max)
      sink->body.reserve(static_cast<size_t>(length));
  }
  sink->body.append(data, n);
  return n;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t n = size * count;
  std::string_view line(data, n);
  static constexpr std::string_view kName = "location:";
  if (line.size() > kName.size()) {
    bool match = true;
    for (size_t i = 0; i < kName.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(line[i])) == kName[i];
    if (match) {
      std::string_view v = line.substr(kName.size());
      while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
      while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' '))
        v.remove_suffix(1);
      sink->location = std::string(v);
    }
  }
  return n;
}

bool connect_failed(CURLcode code) {
  return code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST ||
         code == CURLE_COULDNT_RESOLVE_PROXY;
}

std::string escape(CURL* curl, const std::string& s) {
  char* e = curl_easy_escape(curl, s.c_str(), static_cast<int>(s.size()));
  std::string out = e ? e : "";
  curl_free(e);
  return out;
}

}  // namespace ufm_client_detail

UfmClient::UfmClient(UfmClientOptions options, const Clock& clock, Sleeper sleep)
    : options_(std::move(options)),
      clock_(clock),
      sleep_(std::move(sleep)),
      breaker_(clock, options_.breaker) {
  namespace d = ufm_client_detail;
  if (options_.url.rfind("http://", 0) != 0 && options_.url.rfind("https://", 0) != 0)
    throw std::invalid_argument("ufm: url must start with http:// or https://, got '" +
                                d::redact_url(options_.url) + "'");
  base_ = options_.url;
  while (!base_.empty() && base_.back() == '/') base_.pop_back();
  if (!sleep_)
    sleep_ = [](int64_t us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); };
  d::global_init();
  transport_ = std::make_unique<Transport>();
  transport_->token = options_.credentials.token;
  CURL* curl = transport_->curl = curl_easy_init();
  if (!curl) throw std::runtime_error("ufm: curl_easy_init failed");
  curl_util::configure_easy(
      curl, {options_.timeout_ms, options_.verify_tls, options_.ca_file, "ibwarden-ufm"});
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // gzip when the server offers it
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &d::on_body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &d::on_header);
  if (options_.api == UfmApi::v1) {
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, long{CURLAUTH_BASIC});
    curl_easy_setopt(curl, CURLOPT_USERNAME, options_.credentials.user.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, options_.credentials.password.c_str());
  } else if (options_.api == UfmApi::v2) {
    curl_easy_setopt(curl, CURLOPT_COOKIEFILE, "");  // in-memory cookie engine
  }
}

UfmClient::~UfmClient() = default;

std::string UfmClient::url_of(const std::string& path) const {
  std::string p = path.empty() || path.front() == '/' ? path : "/" + path;
  return ufm_client_detail::redact_url(base_ + std::string(ufm_api_prefix(options_.api)) + p);
}

std::string UfmClient::scrub(std::string text) const {
  const std::string* fetched = &transport_->token;  // read under call_mutex_ (call())
  for (const std::string* secret :
       {&options_.credentials.password, &options_.credentials.token, fetched}) {
    if (secret->size() < 3) continue;
    for (size_t at = text.find(*secret); at != std::string::npos; at = text.find(*secret, at + 3))
      text.replace(at, secret->size(), "***");
  }
  return text;
}

ServiceHealth UfmClient::health() const {
  std::lock_guard lock(breaker_mutex_);
  return breaker_.health();
}

UfmResponse UfmClient::call(const char* method, const std::string& path, const std::string* body,
                            const Validator* validate, UfmBodyStream* stream) {
  namespace d = ufm_client_detail;
  const std::string where = std::string(method) + " " + url_of(path);
  UfmResponse r;
  bool probing = false;
  {
    std::lock_guard lock(breaker_mutex_);
    if (!breaker_.allow()) {
      r.rejected = true;
      r.error = where + ": circuit open after " +
                std::to_string(breaker_.health().consecutive_failures) +
                " failures (last: " + breaker_.health().last_error + ")";
      return r;
    }
    probing = breaker_.probing();
  }
  std::lock_guard call_lock(call_mutex_);
  Transport& t = *transport_;
  const bool is_post = std::string_view(method) == "POST";
  const int max_attempts = probing ? 1 : std::max(1, options_.max_attempts);
  const std::string url = base_ + std::string(ufm_api_prefix(options_.api)) +
                          (path.empty() || path.front() == '/' ? path : "/" + path);
  bool relogged = false;
  bool breaker_failure = false;
  for (int attempt = 1;; ++attempt) {
    r = UfmResponse{};
    r.attempts = attempt;
    bool retryable = false;
    if (options_.api == UfmApi::v2 && !t.logged_in) {
      d::Slist form_headers;
      form_headers.add("Content-Type: application/x-www-form-urlencoded");
      form_headers.add("Expect:");
      std::string form = "httpd_username=" + d::escape(t.curl, options_.credentials.user) +
                         "&httpd_password=" + d::escape(t.curl, options_.credentials.password);
      d::Exchange login = t.perform("POST", base_ + options_.login_path, &form, form_headers,
                                    options_.max_body_bytes);
      curl_slist* cookies = nullptr;
      curl_easy_getinfo(t.curl, CURLINFO_COOKIELIST, &cookies);
      bool have_cookie = cookies != nullptr;
      curl_slist_free_all(cookies);
      const std::string at = "login " + d::redact_url(base_ + options_.login_path);
      if (d::auth_transport_failed(login, at, r, retryable)) {
      } else if (login.status >= 400 || !have_cookie) {
        r.status = login.status;
        r.error = at + ": HTTP " + std::to_string(login.status) +
                  (have_cookie ? "" : " without a session cookie");
        breaker_failure = true;  // wrong credentials: not retried
      } else {
        t.logged_in = true;
      }
    }
    if (options_.api == UfmApi::v3 && t.token.empty())
      fetch_token(t, r, retryable, breaker_failure);
    if (r.error.empty()) {
      d::Slist headers;
      headers.add("Accept: application/json");
      headers.add("Expect:");
      if (body) headers.add("Content-Type: application/json");
      if (options_.api == UfmApi::v3) headers.add("Authorization: Basic " + t.token);
      d::Exchange ex = t.perform(method, url, body, headers, options_.max_body_bytes, stream);
      r.status = ex.code == CURLE_OK ? ex.status : 0;
      r.location = std::move(ex.sink.location);
      if (ex.sink.too_large) {
        r.error =
            where + ": answer larger than " + std::to_string(options_.max_body_bytes) + " bytes";
        retryable = true;
      } else if (ex.sink.stream_failed) {
        r.error = where + ": unusable answer: " + stream->end();
        retryable = true;
      } else if (ex.code == CURLE_OPERATION_TIMEDOUT) {
        r.error = where + ": timed out after " + std::to_string(options_.timeout_ms) + " ms";
        retryable = !is_post;
      } else if (ex.code != CURLE_OK) {
        r.error = where + ": " + ex.curl_error;
        retryable = !is_post || d::connect_failed(ex.code);
      } else if (ex.status == 401 && !relogged &&
                 (options_.api == UfmApi::v2 || (options_.api == UfmApi::v3 && t.fetched))) {
        t.logged_in = false;  // the session expired (or UFM restarted): log in again, once;
        if (t.fetched) t.token.clear();  // or the fetched token was revoked: fetch another
        relogged = true;
        --attempt;
        continue;
      } else if (ex.status >= 200 && ex.status <= 299) {
        std::string problem = stream                  ? stream->end()
                              : validate && *validate ? (*validate)(ex.sink.body)
                                                      : std::string();
        if (problem.empty()) {
          r.ok = true;
          r.body = std::move(ex.sink.body);
        } else {
          r.error = where + ": unusable answer: " + problem;
          retryable = true;
        }
      } else {
        r.error = where + ": HTTP " + std::to_string(ex.status);
        if (!ex.sink.body.empty())  // masked before it is cut (a half secret is not found)
          r.error += ": " + d::one_line(scrub(ex.sink.body));
        retryable = (ex.status >= 500 || ex.status == 429) && !is_post;
        breaker_failure = ex.status == 401 || ex.status == 403;
        r.body = std::move(ex.sink.body);
      }
    }
    if (r.ok || !retryable || attempt >= max_attempts) {
      if (!r.ok && retryable) breaker_failure = true;
      break;
    }
    {
      std::lock_guard lock(breaker_mutex_);
      breaker_.record_retry();
    }
    int shift = std::min(attempt - 1, 30);
    sleep_(std::min(options_.backoff_initial_us << shift, options_.backoff_max_us));
  }
  r.error = scrub(std::move(r.error));
  std::lock_guard lock(breaker_mutex_);
  if (r.ok || !breaker_failure) {
    breaker_.record_success();  // the service answered (a 404 is our problem, not its)
  } else {
    breaker_.record_failure(r.error);
  }
  return r;
}

UfmResponse UfmClient::get(const std::string& path, const Validator& validate) {
  return call("GET", path, nullptr, &validate);
}

UfmResponse UfmClient::get(const std::string& path, UfmBodyStream& stream) {
  return call("GET", path, nullptr, nullptr, &stream);
}

UfmResponse UfmClient::post(const std::string& path, const std::string& json_body) {
  return call("POST", path, &json_body, nullptr);
}

UfmResponse UfmClient::put(const std::string& path, const std::string& json_body) {
  return call("PUT", path, &json_body, nullptr);
}

}  // namespace ibw::ingest

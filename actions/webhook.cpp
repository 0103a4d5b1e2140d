// Webhook delivery: libcurl poster and the outbox sender; see webhook.h.
#include "actions/webhook.h"

#include "core/redact.h"
#include "ingest/curl_util.h"

#include <curl/curl.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <unordered_set>

namespace ibw::actions {
namespace webhook_detail {

constexpr int64_t kSecondUs = int64_t{1000} * 1000;
constexpr int64_t kMaxBackoffUs = 300 * kSecondUs;
constexpr size_t kMaxAnswerChars = 200;  // of the receiver's answer, kept for the error
// Read of the answer before masking: enough that a secret echoed near the cut is still whole
// when masked (a cut first could leave half of it).
constexpr size_t kMaxAnswerRead = 4096;

// Replaces every occurrence of the secret and of the URL's secret parts (should a receiver or
// a library echo them), then cuts to one line of kMaxAnswerChars: masking comes first.
std::string scrub(std::string text, const std::string& secret, const std::string& url) {
  std::vector<std::string> secrets = core::url_secrets(url);
  if (!secret.empty()) secrets.push_back(secret);
  return core::mask_then_cut(std::move(text), secrets, 2 * kMaxAnswerChars + 200);
}

// One line of printable text.
std::string one_line(const std::string& text) {
  return ingest::curl_util::one_line(text, kMaxAnswerChars);
}

using ingest::curl_util::redact_url;

size_t keep_answer(char* data, size_t size, size_t count, void* user) {
  auto* answer = static_cast<std::string*>(user);
  size_t n = size * count;
  if (answer->size() < kMaxAnswerRead)
    answer->append(data, std::min(n, kMaxAnswerRead - answer->size()));
  return n;
}

bool has_line_break(const std::string& s) {
  return s.find_first_of("\r\n") != std::string::npos;
}

// Frees the header list however post() returns.
struct SlistDeleter {
  curl_slist* list = nullptr;
  ~SlistDeleter() { curl_slist_free_all(list); }
};

}  // namespace webhook_detail

bool counts_as_delivered(const PostResult& result) {
  return result.ok || result.http_status == 409;
}

CurlPoster::CurlPoster(WebhookConfig config) : config_(std::move(config)) {
  ingest::curl_util::global_init();
  CURL* curl = curl_easy_init();
  if (!curl) throw std::runtime_error("webhook: curl_easy_init failed");
  curl_ = curl;
  ingest::curl_util::configure_easy(
      curl, {config_.timeout_ms, config_.verify_tls, config_.ca_file, "ibwarden-webhook"});
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &webhook_detail::keep_answer);
}

CurlPoster::~CurlPoster() {
  curl_easy_cleanup(static_cast<CURL*>(curl_));
}

PostResult CurlPoster::post(const std::string& url, const std::string& body,
                            const HttpHeaders& headers) {
  namespace wd = webhook_detail;
  CURL* curl = static_cast<CURL*>(curl_);
  const std::string where = "POST " + wd::redact_url(url);
  PostResult result;

  wd::SlistDeleter list;
  for (const auto& [name, value] : headers) {
    if (wd::has_line_break(name) || wd::has_line_break(value)) {
      result.error = where + ": header " + wd::one_line(name) + " contains a line break";
      return result;
    }
    std::string line = name + ": " + value;
    curl_slist* next = curl_slist_append(list.list, line.c_str());
    if (!next) {
      result.error = where + ": out of memory";
      return result;
    }
    list.list = next;
  }
  // Without "Expect:" curl waits for "100 Continue" before sending a large body.
  curl_slist* next = curl_slist_append(list.list, "Expect:");
  if (next) list.list = next;

  std::string answer;
  char errbuf[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list.list);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);

  CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  // The handle outlives these locals: drop the pointers to them.
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, nullptr);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, nullptr);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);

  if (code == CURLE_OPERATION_TIMEDOUT) {
    result.error = where + ": timed out after " + std::to_string(config_.timeout_ms) + " ms";
  } else if (code != CURLE_OK) {
    result.error = where + ": " + (errbuf[0] ? std::string(errbuf) : curl_easy_strerror(code));
  } else {
    result.http_status = status;
    result.ok = status >= 200 && status <= 299;
    if (!result.ok) {
      result.error = where + ": HTTP " + std::to_string(status);
      if (!answer.empty())  // masked before it is cut
        result.error += ": " + wd::one_line(wd::scrub(answer, config_.secret, url));
    }
  }
  result.error = wd::scrub(result.error, config_.secret, url);
  return result;
}

int64_t backoff_us(int attempts) {
  if (attempts <= 1) return webhook_detail::kSecondUs;
  if (attempts > 20) return webhook_detail::kMaxBackoffUs;  // 2^19 s is far beyond the cap
  return std::min(webhook_detail::kSecondUs << (attempts - 1), webhook_detail::kMaxBackoffUs);
}

OutboxSender::OutboxSender(WebhookConfig config, HttpPoster& poster, OutboxQueue& queue)
    : config_(std::move(config)), poster_(poster), queue_(queue) {
  if (config_.url.rfind("http://", 0) != 0 && config_.url.rfind("https://", 0) != 0)
    throw std::invalid_argument("webhook: url must start with http:// or https://, got '" +
                                webhook_detail::redact_url(config_.url) + "'");
}

HttpHeaders OutboxSender::headers_for(const OutboxEntry& entry) const {
  HttpHeaders h = {{"Content-Type", "application/json"},
                   {"Idempotency-Key", entry.idempotency_key},
                   {"X-Ibwarden-Delivery", entry.idempotency_key}};
  if (!config_.secret.empty()) h.emplace_back("Authorization", "Bearer " + config_.secret);
  return h;
}

OutboxSender::Stats OutboxSender::deliver_due(int64_t now_us) {
  Stats stats;
  if (now_us < hold_until_us_) return stats;  // the failed entry goes first, at its time
  std::unordered_set<int64_t> done;  // a queue that hands an entry out twice ends the round
  for (;;) {
    std::vector<OutboxEntry> batch = queue_.due(now_us, kBatch);
    for (const OutboxEntry& entry : batch) {
      if (!done.insert(entry.id).second) return stats;
      PostResult result;
      try {
        result = poster_.post(config_.url, entry.payload, headers_for(entry));
      } catch (const std::exception& e) {
        result = PostResult{false, 0, std::string("POST failed: ") + e.what()};
      }
      if (counts_as_delivered(result)) {
        queue_.delivered(entry.id, now_us);
        ++stats.delivered;
        continue;
      }
      std::string error =
          result.error.empty() ? "HTTP " + std::to_string(result.http_status) : result.error;
      hold_until_us_ = now_us + backoff_us(entry.attempts + 1);
      queue_.failed(entry.id, hold_until_us_,
                    webhook_detail::scrub(error, config_.secret, config_.url));
      ++stats.failed;
      return stats;  // keep order: nothing after a failed entry goes out this round
    }
    if (batch.size() < kBatch) return stats;
  }
}

}  // namespace ibw::actions

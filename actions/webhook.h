// Webhook delivery of repair work orders: an outbox (rows kept by the store, one per order
// change) is drained to a webhook as JSON POSTs, in order, with retries and an idempotency key.
//
// Pieces:
//  - HttpPoster: one POST; CurlPoster does it with libcurl (tests use a fake).
//  - OutboxQueue: the outbox as the sender sees it; the daemon adapts the store to it
//    (Store::outbox_due / outbox_delivered / outbox_failed, store/store.h).
//  - OutboxSender: deliver_due(now) posts every due entry, oldest first. The clock is a
//    parameter and nothing but the poster talks to the outside world.
//
// Delivery semantics:
//  - Outcome of a POST: 2xx is delivered; 409 Conflict is delivered too (the receiver already
//    has that idempotency key); anything else (other 4xx, 5xx, 3xx: redirects are not
//    followed, transport errors, timeouts) is a retryable failure. There are no permanent
//    failures: a receiver that keeps refusing keeps the queue waiting, and the last error is
//    kept on the row for the operator to see.
//  - Order: a later change of an order never overtakes an earlier one. The outbox is
//    delivered strictly oldest first: on a failure the round stops, the failed entry is
//    retried at now + backoff_us(attempts + 1), and nothing newer goes out before it. Across
//    restarts this rests on the queue's due() contract (head of line, see OutboxQueue); within
//    a process the sender also holds back until the retry time itself.
//  - At least once: an entry is marked delivered right after its POST succeeds (before the
//    next POST). A crash in between sends it again after a restart, with the same
//    Idempotency-Key ("<order id>-v<version>"), which the receiver uses to drop the copy.
//    Nothing is lost: an entry leaves the queue only once delivered.
//
// Headers of every POST: Content-Type: application/json, Idempotency-Key: <key>,
// X-Ibwarden-Delivery: <key>, and Authorization: Bearer <secret> when a secret is set. The
// secret is never logged nor put into an error message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ibw::actions {

struct WebhookConfig {
  std::string url;         // http:// or https://
  std::string secret;      // sent as "Authorization: Bearer <secret>" when not empty; never logged
  long timeout_ms = 5000;  // whole request: connect, send, answer
  std::string ca_file;     // PEM bundle for https; empty = the system's
  bool verify_tls = true;  // peer certificate and host name
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct PostResult {
  bool ok = false;       // HTTP 2xx
  long http_status = 0;  // 0 when no answer came (connect error, timeout)
  std::string error;     // empty when ok; names the URL (without user:password), never the secret
};

// Whether the outbox may forget the entry: 2xx, or 409 (duplicate idempotency key).
bool counts_as_delivered(const PostResult& result);

class HttpPoster {
 public:
  virtual ~HttpPoster() = default;
  // One POST of `body`; never throws for HTTP or transport errors (they are in the result).
  virtual PostResult post(const std::string& url, const std::string& body,
                          const HttpHeaders& headers) = 0;
};

// libcurl, one easy handle reused across posts (keeps the connection alive). Uses
// timeout_ms, ca_file and verify_tls of the config; url and secret come with each post.
// No proxy (environment variables are ignored), no redirects, http and https only, no
// signals (CURLOPT_NOSIGNAL). Not thread-safe: one poster per thread.
class CurlPoster : public HttpPoster {
 public:
  explicit CurlPoster(WebhookConfig config);  // throws std::runtime_error if curl fails to init
  ~CurlPoster() override;
  CurlPoster(const CurlPoster&) = delete;
  CurlPoster& operator=(const CurlPoster&) = delete;

  PostResult post(const std::string& url, const std::string& body,
                  const HttpHeaders& headers) override;

 private:
  WebhookConfig config_;
  void* curl_ = nullptr;  // CURL*; kept opaque so that users need not include curl.h
};

struct OutboxEntry {
  int64_t id = 0;
  std::string idempotency_key;  // "<order id>-v<version>"
  std::string payload;          // JSON document, posted as is
  int attempts = 0;             // failed attempts so far
};

class OutboxQueue {
 public:
  virtual ~OutboxQueue() = default;
  // Head of line: the oldest undelivered entries, oldest first, at most `limit`, ending before
  // the first one whose next attempt is after now_us (empty when the oldest is not due yet).
  // Entries that are due but wait behind one that is not must NOT be returned, or they would
  // overtake it. With the store: take Store::outbox_due(INT64_MAX, limit) (every undelivered
  // item, oldest first) and cut it at the first item with next_attempt_us > now_us.
  virtual std::vector<OutboxEntry> due(int64_t now_us, size_t limit) = 0;
  virtual void delivered(int64_t id, int64_t now_us) = 0;
  // attempts + 1, next attempt time, last error.
  virtual void failed(int64_t id, int64_t next_attempt_us, const std::string& error) = 0;
};

// Delay before the next attempt after `attempts` failures (this one included): 1 s, 2 s,
// 4 s, ... capped at 5 minutes. attempts <= 1 gives 1 s.
int64_t backoff_us(int attempts);

class OutboxSender {
 public:
  struct Stats {
    int delivered = 0;
    int failed = 0;  // 0 or 1: a failure ends the round
  };

  // Throws std::invalid_argument unless config.url starts with http:// or https://.
  // poster and queue must outlive the sender.
  OutboxSender(WebhookConfig config, HttpPoster& poster, OutboxQueue& queue);

  // Posts the entries due at now_us, oldest first, in batches, until none is left or one
  // fails; posts nothing before the retry time of this sender's last failure. Exceptions of
  // the queue propagate; an exception of the poster counts as a failure.
  Stats deliver_due(int64_t now_us);

  // The headers of the POST of `entry` (exposed for tests).
  HttpHeaders headers_for(const OutboxEntry& entry) const;

  static constexpr size_t kBatch = 64;

 private:
  WebhookConfig config_;
  HttpPoster& poster_;
  OutboxQueue& queue_;
  int64_t hold_until_us_ = 0;  // retry time of the last failure
};

}  // namespace ibw::actions

#include "daemon/outbox_worker.h"

#include <climits>
#include <thread>

#include "actions/webhook.h"
#include "config/store_spec.h"
#include "daemon/logger.h"
#include "ingest/clock.h"
#include "store/store.h"

namespace ibw::daemon {
namespace outbox_detail {

// The store's outbox as OutboxSender wants it (head of line: see OutboxQueue::due).
class StoreOutbox : public actions::OutboxQueue {
 public:
  explicit StoreOutbox(store::Store& db) : db_(db) {}
  std::vector<actions::OutboxEntry> due(int64_t now_us, size_t limit) override {
    std::vector<actions::OutboxEntry> out;
    for (const auto& item : db_.outbox_due(INT64_MAX, limit)) {
      if (item.next_attempt_us > now_us) break;
      out.push_back({item.id, item.idempotency_key, item.payload, item.attempts});
    }
    return out;
  }
  void delivered(int64_t id, int64_t now_us) override { db_.outbox_delivered(id, now_us); }
  void failed(int64_t id, int64_t next_attempt_us, const std::string& error) override {
    db_.outbox_failed(id, next_attempt_us, error);
    last_error = error;
  }
  std::string last_error;

 private:
  store::Store& db_;
};

}  // namespace outbox_detail

void run_outbox(const config::Config& cfg, const store::StoreSpec& spec, const std::string& secret,
                const std::atomic<bool>& running) {
  actions::WebhookConfig wc;
  wc.url = *cfg.workorders.webhook;
  wc.secret = secret;
  wc.timeout_ms = static_cast<long>(cfg.workorders.webhook_timeout_us / 1000);
  ingest::SystemClock clock;
  bool failing = false;
  while (running) {
    try {
      auto db = store::Store::open(spec);
      actions::CurlPoster poster(wc);
      outbox_detail::StoreOutbox queue(*db);
      actions::OutboxSender sender(wc, poster, queue);
      while (running) {
        auto stats = sender.deliver_due(clock.now_us());
        if (stats.delivered)
          log(LogLevel::info, "work orders delivered to the webhook", {{"count", stats.delivered}});
        if (stats.failed && !failing)
          log(LogLevel::warning, "webhook delivery failing; retrying with backoff",
              {{"error", queue.last_error}});
        if (stats.delivered && failing) log(LogLevel::info, "webhook delivery recovered");
        failing = stats.failed ? true : (stats.delivered ? false : failing);
        for (int i = 0; i < 5 && running; ++i)
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    } catch (const std::exception& e) {
      log(LogLevel::error, "webhook worker error; retrying", {{"error", e.what()}});
      for (int i = 0; i < 20 && running; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

}  // namespace ibw::daemon

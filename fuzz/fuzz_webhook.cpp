// Feeds what a webhook receiver and the operator control to the webhook delivery
// (actions::OutboxSender): the webhook URL and secret (from the configuration), and the
// receiver's answer (HTTP status and text) as the poster returns it; the answer and URL also
// go through the helpers that make them printable (ingest::curl_util::one_line, redact_url).
// Input lines: URL, secret, status, then the answer. The poster and the queue are fakes: no
// network (libcurl's own parsing of HTTP answers is not fuzzed here). Findings: a crash, an
// exception other than the documented std::invalid_argument for a bad URL, and the secret
// showing in a recorded error.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "actions/webhook.h"
#include "fuzz/fuzz_util.h"
#include "ingest/curl_util.h"

namespace {

using namespace ibw::actions;

struct FakePoster : HttpPoster {
  PostResult answer;
  PostResult post(const std::string&, const std::string&, const HttpHeaders&) override {
    return answer;
  }
};

struct FakeQueue : OutboxQueue {
  std::vector<OutboxEntry> entries;
  std::vector<std::string> errors;
  std::vector<OutboxEntry> due(int64_t, size_t limit) override {
    return {entries.begin(), entries.begin() + static_cast<long>(std::min(limit, entries.size()))};
  }
  void delivered(int64_t id, int64_t) override {
    std::erase_if(entries, [&](auto& e) { return e.id == id; });
  }
  void failed(int64_t, int64_t, const std::string& error) override { errors.push_back(error); }
};

std::string_view next_line(std::string_view& text) {
  size_t eol = text.find('\n');
  std::string_view line = text.substr(0, eol);
  text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace cu = ibw::ingest::curl_util;
  std::string_view text = ibw::fuzz::as_text(data, size);
  WebhookConfig config;
  config.url = std::string(next_line(text));
  config.secret = std::string(next_line(text));
  std::string_view status = next_line(text);
  (void)cu::redact_url(config.url);
  std::string printable = cu::one_line(text, 200);
  for (char c : printable)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) __builtin_trap();

  FakePoster poster;
  poster.answer.http_status = 0;
  for (char c : status.substr(0, 4))
    if (c >= '0' && c <= '9')
      poster.answer.http_status = poster.answer.http_status * 10 + (c - '0');
  poster.answer.ok = poster.answer.http_status >= 200 && poster.answer.http_status <= 299;
  if (!poster.answer.ok) poster.answer.error = std::string(text);
  FakeQueue queue;
  queue.entries = {{1, "1-v1", R"({"id": 1})", 0}, {2, "1-v2", R"({"id": 1})", 3}};
  try {
    OutboxSender sender(config, poster, queue);
    for (const auto& [name, value] : sender.headers_for(queue.entries[0]))
      if (name.empty()) __builtin_trap();
    sender.deliver_due(1'000'000);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  // A secret of blanks or control characters cannot be told from the one-line formatting
  // (control characters become spaces); every other secret must never reach an error.
  bool plain = std::none_of(config.secret.begin(), config.secret.end(), [](char c) {
    return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f;
  });
  if (!config.secret.empty() && plain && config.secret.find('*') == std::string::npos)
    for (const std::string& e : queue.errors)
      if (e.find(config.secret) != std::string::npos) __builtin_trap();
  return 0;
}

// The SSE feed (web/stream.h) without sockets: where a new stream starts, what a poll sends
// (events, decisions, changed work orders, in id order with the cursor as SSE id), resuming
// from Last-Event-ID, batch limits, keep-alive comments, store failures, and GET /stream.
#include <catch2/catch.hpp>

#include "tests/unit/test_web_helpers.h"
#include "web/stream.h"

using namespace ibw;
using namespace ibw::web_test;
using web::EventStream;

namespace web_stream_test {

std::string kind_of(const std::string& message) {
  size_t at = message.find("\nevent: ");
  if (at == std::string::npos) return message.substr(0, message.find('\n'));
  return message.substr(at + 8, message.find('\n', at + 8) - at - 8);
}

std::string id_of(const std::string& message) {
  return message.rfind("id: ", 0) == 0 ? message.substr(4, message.find('\n') - 4) : "";
}

nlohmann::json data_of(const std::string& message) {
  size_t at = message.find("data: ");
  REQUIRE(at != std::string::npos);
  return nlohmann::json::parse(message.substr(at + 6));
}

struct Clock {
  int64_t now = kNow;
  std::function<int64_t()> fn() {
    return [this] { return now; };
  }
};

}  // namespace web_stream_test

using namespace web_stream_test;

TEST_CASE("web stream: a new stream starts at the newest ids and sends what follows", "[web]") {
  WebBench b;
  Clock clock;
  EventStream s(b.backend, clock.fn(), {}, std::nullopt);
  std::string hello = s.start();
  CHECK(hello.rfind("retry: 3000\nid: 6.2\nevent: hello\n", 0) == 0);
  CHECK(s.poll().messages.empty());

  store::WriteBatch w;
  w.events.push_back(port_event(7, kLeaf, 2, "leaf001", "link_down"));
  core::DecisionRecord d;
  d.time_us = kNow, d.rule = "manual", d.action = "enable", d.status = "executed";
  w.decisions.push_back(d);
  core::WorkOrder o = *b.db->workorder(b.order_open);
  o.status = "in_progress";
  w.workorders.push_back(o);
  b.db->write(w);

  auto p = s.poll();
  REQUIRE(p.messages.size() == 3);
  CHECK(kind_of(p.messages[0]) == "event");
  CHECK(id_of(p.messages[0]) == "7.2");
  CHECK(data_of(p.messages[0])["kind"] == "link_down");
  CHECK(kind_of(p.messages[1]) == "decision");
  CHECK(id_of(p.messages[1]) == "7.3");
  CHECK(kind_of(p.messages[2]) == "workorder");
  CHECK(data_of(p.messages[2])["status"] == "in_progress");
  CHECK_FALSE(p.more);
  CHECK(s.poll().messages.empty());  // each change once
  CHECK(web::format_stream_cursor(s.cursor()) == "7.3");
}

TEST_CASE("web stream: Last-Event-ID resumes right after the cursor in batches", "[web]") {
  WebBench b;
  Clock clock;
  EventStream::Options opts;
  opts.batch = 2;
  EventStream s(b.backend, clock.fn(), opts, web::StreamCursor{3, 0});
  s.start();
  auto p = s.poll();
  REQUIRE(p.messages.size() == 4);  // events 4 and 5, decisions 1 and 2
  CHECK(id_of(p.messages[0]) == "4.0");
  CHECK(id_of(p.messages[3]) == "5.2");
  CHECK(p.more);
  p = s.poll();
  REQUIRE(p.messages.size() == 1);
  CHECK(id_of(p.messages[0]) == "6.2");
  CHECK_FALSE(p.more);
}

TEST_CASE("web stream: an empty store picks up the first new event by time", "[web]") {
  store_test::TempDir dir;
  std::string path = dir.file("empty.db");
  auto db = store::Store::open(path);
  FakeBackend backend(path);
  Clock clock;
  EventStream s(backend, clock.fn(), {}, std::nullopt);
  CHECK(s.start().find("id: 0.0\n") != std::string::npos);
  store::WriteBatch w;
  w.events.push_back(port_event(1, kLeaf, 1, "leaf001", "link_up"));
  w.events.back().time_us = kNow;
  db->write(w);
  auto p = s.poll();
  REQUIRE(p.messages.size() == 1);
  CHECK(id_of(p.messages[0]) == "1.0");
}

TEST_CASE("web stream: keep-alive comments after silence", "[web]") {
  WebBench b;
  Clock clock;
  EventStream::Options opts;
  opts.keepalive_us = 15 * kSecond;
  EventStream s(b.backend, clock.fn(), opts, std::nullopt);
  s.start();
  clock.now += 10 * kSecond;
  CHECK(s.poll().messages.empty());
  clock.now += 5 * kSecond;
  auto p = s.poll();
  REQUIRE(p.messages.size() == 1);
  CHECK(p.messages[0] == ": keep-alive\n\n");
  clock.now += 1 * kSecond;
  CHECK(s.poll().messages.empty());
}

TEST_CASE("web stream: a store failure is reported once and the stream recovers", "[web]") {
  WebBench b;
  Clock clock;
  EventStream s(b.backend, clock.fn(), {}, web::StreamCursor{5, 2});
  b.backend.fail_store = true;
  auto p = s.poll();
  REQUIRE(p.messages.size() == 1);
  CHECK(kind_of(p.messages[0]) == "error");
  CHECK(data_of(p.messages[0])["error"].get<std::string>().find("disk on fire") !=
        std::string::npos);
  CHECK(s.poll().messages.empty());  // reported once
  b.backend.fail_store = false;
  p = s.poll();
  REQUIRE(p.messages.size() == 1);
  CHECK(id_of(p.messages[0]) == "6.2");
}

TEST_CASE("web stream: GET stream answers an event stream or 400 for a bad cursor", "[web]") {
  WebBench b;
  auto api = b.api();
  web::Response r = api->handle(request("GET", "/api/v1/stream"));
  CHECK(r.status == 200);
  CHECK(r.content_type == "text/event-stream");
  REQUIRE(r.stream);
  CHECK(r.body.find("event: hello\ndata: {\"cursor\":\"6.2\"}") != std::string::npos);
  web::Request resume = request("GET", "/api/v1/stream");
  resume.headers["last-event-id"] = "2.1";
  r = api->handle(resume);
  REQUIRE(r.stream);
  CHECK(r.stream->poll().messages.size() == 5);  // events 3-6, decision 2
  resume.headers["last-event-id"] = "abc";
  r = api->handle(resume);
  CHECK(r.status == 400);
  CHECK_FALSE(r.stream);
  CHECK(api->handle(request("GET", "/api/v1/stream", nullptr)).status == 401);
  b.backend.fail_store = true;
  auto fresh = b.api();
  CHECK(fresh->handle(request("GET", "/api/v1/stream")).status == 503);
}

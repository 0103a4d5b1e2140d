// Route observations (ingest/observation.h) and the probe spool (ingest/probe_spool.h): JSONL
// and CSV with every field, every kind of bad line reported at once as file:line: field:
// message, the writers read back, and spool files accepted, rejected whole, left while young.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <utime.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "fabric/diagnostics.h"
#include "ingest/observation.h"
#include "ingest/probe_spool.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using ingest::Observation;

namespace observation_test {

std::vector<std::string> errors_of(const std::string& text, const std::string& file = "o.jsonl") {
  try {
    ingest::parse_observations(text, file);
  } catch (const fabric::InputError& e) {
    std::vector<std::string> out;
    for (const auto& d : e.diagnostics()) out.push_back(fabric::format_diagnostic(d));
    return out;
  }
  return {};
}

TEST_CASE("observations: JSONL and CSV with every field", "[observation]") {
  auto j = ingest::parse_observations(
      "\n{\"src\": \"node0001 mlx5_0/1\", \"dst\": \"0x0002c90300000011\", \"sent\": 100, "
      "\"lost\": 3, \"slow\": 2, \"gbps\": 180.5, \"expected_gbps\": 200, \"rtt_us\": 4.5, "
      "\"routing\": \"static\", \"time\": \"2026-11-25T02:00:00Z\"}\n"
      "{\"src\": \"12\", \"dst\": \"leaf003\", \"sent\": 10, \"lost\": 0, \"routing\": "
      "\"directed\", \"path\": \"0,1,5,3\", \"time\": 1795572000}\n",
      "o.jsonl");
  REQUIRE(j.size() == 2);
  CHECK(j[0].src == "node0001 mlx5_0/1");
  CHECK(j[0].dst == "0x0002c90300000011");
  CHECK(j[0].sent == 100);
  CHECK(j[0].lost == 3);
  CHECK(j[0].slow == 2);
  CHECK(*j[0].gbps == 180.5);
  CHECK(*j[0].expected_gbps == 200);
  CHECK(*j[0].rtt_us == 4.5);
  CHECK(j[0].routing == ingest::Routing::static_lft);
  CHECK(j[0].time_us == int64_t{1795572000} * 1'000'000);
  CHECK(j[0].origin == "o.jsonl:2");
  CHECK(j[1].routing == ingest::Routing::directed);
  CHECK(j[1].path == std::vector<int>{0, 1, 5, 3});
  CHECK(j[1].time_us == j[0].time_us);

  auto c = ingest::parse_observations(
      "# ib_write_bw matrix\nsrc,dst,sent,lost,gbps,expected_gbps,routing\n"
      "node0001,node0002,1000,0,195,200,adaptive\n\n\"node 3, a\",node0004,1000,12,,,\n",
      "bw.csv");
  REQUIRE(c.size() == 2);
  CHECK(c[0].routing == ingest::Routing::adaptive);
  CHECK(*c[0].gbps == 195);
  CHECK(c[1].src == "node 3, a");
  CHECK(c[1].lost == 12);
  CHECK_FALSE(c[1].gbps);
  CHECK(c[1].routing == ingest::Routing::unspecified);
  CHECK(c[1].origin == "bw.csv:5");
}

TEST_CASE("observations: every bad line at once as file:line: field: message", "[observation]") {
  auto e = errors_of(
      "{\"src\": \"a\", \"dst\": \"b\", \"sent\": 10, \"lost\": 11}\n"
      "{\"src\": \"a\", \"sent\": 10, \"lost\": 1}\n"
      "{\"src\": \"a\", \"dst\": \"b\", \"sent\": -1, \"lost\": 0}\n"
      "{\"src\": \"a\", \"dst\": \"b\", \"sent\": 10, \"lost\": 0, \"colour\": 1}\n"
      "{\"src\": \"a\", \"dst\": \"b\", \"sent\": 10, \"lost\": 0, \"gbps\": 10}\n"
      "{\"src\": \"a\", \"dst\": \"b\", \"sent\": 10, \"lost\": 0, \"routing\": \"ecmp\"}\n"
      "{\"src\": \"a\", \"dst\": \"b\", \"sent\": 10, \"lost\": 0, \"routing\": \"directed\"}\n"
      "{\"src\": \"a\", \"dst\": \"b\", \"sent\": 10, \"lost\": 0, \"time\": \"yesterday\"}\n"
      "not json\n"
      "{\"src\": \"a\", \"dst\": \"b\", \"sent\": 10, \"lost\": 0, \"path\": \"0,1,999\"}\n"
      "{\"src\": \"a\", \"dst\": \"b\", \"sent\": \"many\", \"lost\": 0}\n");
  REQUIRE(e.size() >= 11);
  auto has = [&](const std::string& prefix) {
    for (const auto& x : e)
      if (x.rfind(prefix, 0) == 0) return true;
    return false;
  };
  CHECK(has("o.jsonl:1: lost: lost is more than sent"));
  CHECK(has("o.jsonl:2: dst: missing"));
  CHECK(has("o.jsonl:3: sent: "));
  CHECK(has("o.jsonl:4: colour: unknown field"));
  CHECK(has("o.jsonl:5: expected_gbps: gbps and expected_gbps go together"));
  CHECK(has("o.jsonl:6: routing: \"ecmp\" is not static, adaptive or directed"));
  CHECK(has("o.jsonl:7: path: missing"));
  CHECK(has("o.jsonl:8: time: "));
  CHECK(has("o.jsonl:9: not a JSON object"));
  CHECK(has("o.jsonl:10: path: "));
  CHECK(has("o.jsonl:11: sent: "));

  auto csv = errors_of("src,dst,sent,lost,weight\na,b,1,0,3\n", "m.csv");
  REQUIRE(!csv.empty());
  CHECK(csv[0].rfind("m.csv:1: weight: unknown column", 0) == 0);
  CHECK(errors_of("src,dst,sent,lost\na,b,1\n", "m.csv").size() == 1);  // too few cells
}

TEST_CASE("observations: what the writers write reads back the same", "[observation]") {
  Observation o;
  o.src = "node0001 mlx5_0/1", o.dst = "leaf003", o.sent = 20, o.lost = 4;
  o.routing = ingest::Routing::directed, o.path = {0, 1, 17};
  o.time_us = int64_t{1795572000} * 1'000'000;
  o.rtt_p50_us = 3.5, o.rtt_p99_us = 9;
  auto j = ingest::parse_observations(ingest::observation_jsonl(o) + "\n", "w.jsonl");
  auto c = ingest::parse_observations(
      ingest::observation_csv_header() + "\n" + ingest::observation_csv(o) + "\n", "w.csv");
  for (const auto* back : {&j.at(0), &c.at(0)}) {
    CHECK(back->src == o.src);
    CHECK(back->dst == o.dst);
    CHECK(back->sent == 20);
    CHECK(back->lost == 4);
    CHECK(back->routing == o.routing);
    CHECK(back->path == o.path);
    CHECK(back->time_us == o.time_us);
    CHECK(*back->rtt_p99_us == 9);
  }
}

TEST_CASE("probe spool: good files in - bad files out whole - young files wait", "[observation]") {
  store_test::TempDir dir;
  std::string spool = dir.file("spool");
  ingest::ProbeSpool s(spool, 1'000'000);
  auto write = [&](const std::string& name, const std::string& text, int64_t age_s) {
    std::ofstream(spool + "/" + name) << text;
    struct utimbuf t;
    t.actime = t.modtime = static_cast<time_t>(1'800'000'000 - age_s);
    utime((spool + "/" + name).c_str(), &t);
  };
  const int64_t now = int64_t{1'800'000'000} * 1'000'000;
  write("a.jsonl", "{\"src\":\"x\",\"dst\":\"y\",\"sent\":5,\"lost\":1}\n", 10);
  write("b.csv", "src,dst,sent,lost\nx,y,5,9\nx,y,5,1\nx,y,q,1\n", 10);
  write("c.jsonl", "{\"src\":\"x\",\"dst\":\"y\",\"sent\":5,\"lost\":0}\n",
        0);  // still being written
  write(".hidden.jsonl", "garbage", 10);
  write("notes.txt", "garbage", 10);

  auto r = s.poll(now);
  CHECK(r.error.empty());
  CHECK(r.accepted == std::vector<std::string>{"a.jsonl"});
  REQUIRE(r.observations.size() == 1);
  CHECK(r.observations[0].lost == 1);
  REQUIRE(r.rejected.size() == 1);
  CHECK(r.rejected[0].find("b.csv") == 0);
  CHECK(r.rejected[0].find("(2 errors)") != std::string::npos);
  namespace fs = std::filesystem;
  CHECK(fs::exists(spool + "/done/a.jsonl"));
  CHECK(fs::exists(spool + "/failed/b.csv"));
  std::ifstream errs(spool + "/failed/b.csv.errors");
  std::string all((std::istreambuf_iterator<char>(errs)), std::istreambuf_iterator<char>());
  CHECK(all.find("b.csv:2: lost:") != std::string::npos);
  CHECK(all.find("b.csv:4: sent:") != std::string::npos);
  CHECK(fs::exists(spool + "/c.jsonl"));  // left for the next poll
  CHECK(fs::exists(spool + "/.hidden.jsonl"));
  CHECK(fs::exists(spool + "/notes.txt"));

  auto again = s.poll(now + 5'000'000);  // c.jsonl has settled; nothing is read twice
  CHECK(again.accepted == std::vector<std::string>{"c.jsonl"});
  CHECK(again.observations.size() == 1);
  CHECK(again.rejected.empty());
  CHECK(s.poll(now + 10'000'000).accepted.empty());
}

}  // namespace observation_test

namespace observation_test {

// The same line with one character of a string written as a JSON escape: the fast reader
// leaves such lines to the JSON library, so both paths are compared on every case.
std::string escaped(std::string line) {
  size_t at = line.find("\"src\":\"");
  REQUIRE(at != std::string::npos);
  at += 7;
  char c = line[at];
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
  return line.replace(at, 1, buf);
}

TEST_CASE("observations: the fast JSONL reader agrees with the JSON library", "[observation]") {
  const std::vector<std::string> lines = {
      R"({"src":"host001/1","dst":"0x0002c9030000aa01","sent":100,"lost":3,"routing":"adaptive"})",
      R"({ "src":"7", "dst" : "leaf003/18" , "sent": 10, "lost": 0, "slow": 2, "time": "2026-11-25T02:00:00Z" })",
      R"({"src":"a","dst":"b","sent":5,"lost":0,"routing":"directed","path":[0, 1, 5]})",
      R"({"src":"a","dst":"b","sent":5,"lost":0,"rtt_us":null})",
      R"({"src":"a","dst":"b","sent":5,"lost":1,"sent":7})",        // the last of a key wins
      R"({"src":"a","dst":"b","sent":"x","lost":"y","colour":1})",  // errors in key order
      R"({"src":"a","dst":"b","sent":3,"lost":4})",
      R"({"src":"a","dst":"b","sent":-3,"lost":0})",
      R"({"src":"a","dst":"b","sent":1.5,"lost":0,"gbps":12.5})",
      R"({"src":"a","dst":"b","sent":5,"lost":0,"routing":true})",
      R"({"src":"a","dst":"b","sent":5,"lost":0} trailing)",
      R"({"src":"a","dst":"b","sent":5,"lost":0,"path":[0,"1"]})",
      R"({"src":"a","dst":"b","sent":5,"lost":0,"roundtrip":true})",
      R"({"src":"a","dst":"b","sent":5,"lost":0,"roundtrip": false })",
      R"({"src":"a","dst":"b","sent":5,"lost":0,"roundtrip":"yes"})",
      R"({"src":"a","dst":"b","sent":5,"lost":0,"roundtrip":truex})",
      R"({"src":"a","dst":"b","sent":true,"lost":0})",
  };
  for (const std::string& line : lines) {
    INFO(line);
    std::string slow = escaped(line);
    REQUIRE(slow != line);
    auto fast_errors = errors_of(line), slow_errors = errors_of(slow);
    CHECK(fast_errors == slow_errors);
    if (!fast_errors.empty()) continue;
    auto a = ingest::parse_observations(line, "o.jsonl");
    auto b = ingest::parse_observations(slow, "o.jsonl");
    REQUIRE(a.size() == 1);
    REQUIRE(b.size() == 1);
    CHECK(ingest::observation_jsonl(a[0]) == ingest::observation_jsonl(b[0]));
    CHECK(a[0].origin == "o.jsonl:1");
  }
  CHECK(errors_of(lines[5]).size() == 3);  // colour, lost, sent
}

TEST_CASE("observations: a large file read on a reader thread keeps its line numbers",
          "[observation]") {
  std::string text;
  const int lines = 30000;  // over 1 MiB: parsed on a reader thread
  for (int i = 1; i <= lines; ++i)
    text += i == 7 || i == 25000 ? "{\"src\":\"a\",\"dst\":\"b\",\"sent\":1,\"lost\":2}\n"
                                 : "{\"src\":\"host" + std::to_string(i) +
                                       "\",\"dst\":\"leaf001/18\",\"sent\":100,\"lost\":0}\n";
  REQUIRE(text.size() > (1u << 20));
  auto errors = errors_of(text, "big.jsonl");
  REQUIRE(errors.size() == 2);
  CHECK(errors[0] == "big.jsonl:7: lost: lost is more than sent");
  CHECK(errors[1] == "big.jsonl:25000: lost: lost is more than sent");
  std::string good;
  for (int i = 1; i <= lines; ++i)
    good += "{\"src\":\"host" + std::to_string(i) + "\",\"dst\":\"x\",\"sent\":9,\"lost\":1}\n";
  auto all = ingest::parse_observations(good, "good.jsonl");
  REQUIRE(all.size() == static_cast<size_t>(lines));
  CHECK(all.front().src == "host1");
  CHECK(all.back().src == "host" + std::to_string(lines));
  CHECK(all[20000].origin == "good.jsonl:20001");
}

TEST_CASE("observations: streamed in file order - bad lines after every good record",
          "[observation]") {
  std::string text;
  const int lines = 40000;  // over 1 MiB: parsed on a reader thread in batches
  for (int i = 1; i <= lines; ++i)
    text += i == 3 || i == 39999 ? "{\"src\":\"a\",\"dst\":\"b\",\"sent\":1}\n"
            : i % 1000 == 0
                ? "\n"
                : "{\"src\":\"host" + std::to_string(i) +
                      "\",\"dst\":\"leaf001/18\",\"sent\":100,\"lost\":" + std::to_string(i % 7) +
                      "}\n";
  REQUIRE(text.size() > (1u << 20));
  std::vector<int> seen;
  uint64_t lost = 0;
  std::vector<std::string> errors;
  try {
    ingest::for_each_observation(text, "s.jsonl", [&](const ingest::Observation& o, int line) {
      CHECK(o.src == "host" + std::to_string(line));
      CHECK(o.origin.empty());
      seen.push_back(line), lost += o.lost;
    });
    FAIL("no error");
  } catch (const fabric::InputError& e) {
    for (const auto& d : e.diagnostics()) errors.push_back(fabric::format_diagnostic(d));
  }
  CHECK(errors ==
        std::vector<std::string>{"s.jsonl:3: lost: missing (every observation needs it)",
                                 "s.jsonl:39999: lost: missing (every observation needs it)"});
  REQUIRE(seen.size() == static_cast<size_t>(lines - 2 - lines / 1000));
  CHECK(std::is_sorted(seen.begin(), seen.end()));
  CHECK(seen.back() == lines - 2);  // 39999 is bad, 40000 blank
  uint64_t want = 0;
  for (int i : seen) want += static_cast<uint64_t>(i % 7);
  CHECK(lost == want);
  // A consumer that throws stops the reader; its error is passed on, not the file's.
  int calls = 0;
  CHECK_THROWS_WITH(ingest::for_each_observation(text, "s.jsonl",
                                                 [&](const ingest::Observation&, int) {
                                                   if (++calls == 10000)
                                                     throw std::runtime_error("enough");
                                                 }),
                    "enough");
  CHECK(calls == 10000);
  // Small input, read without a thread: the same records.
  std::vector<int> small;
  CHECK_THROWS_AS(ingest::for_each_observation(
                      text.substr(0, text.find('\n', 2000)), "s.jsonl",
                      [&](const ingest::Observation&, int line) { small.push_back(line); }),
                  fabric::InputError);  // line 3
  REQUIRE(small.size() > 20);
  CHECK(small == std::vector<int>(seen.begin(), seen.begin() + static_cast<long>(small.size())));
}

TEST_CASE("file text: a regular file is mapped - a pipe is read - a missing file names itself",
          "[observation]") {
  store_test::TempDir tmp;
  const std::string dir = tmp.path.string();
  const std::string path = dir + "/o.jsonl";
  std::ofstream(path) << "{\"src\":\"a\",\"dst\":\"b\",\"sent\":1,\"lost\":0}\n";
  fabric::FileText mapped(path);
  CHECK(mapped.text() == fabric::read_file(path));
  fabric::FileText moved(std::move(mapped));
  CHECK(moved.text().size() == fabric::read_file(path).size());
  CHECK(mapped.text().empty());
  std::ofstream(dir + "/empty.jsonl").flush();
  CHECK(fabric::FileText(dir + "/empty.jsonl").text().empty());
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  std::thread writer([&] { std::ofstream(dir + "/fifo") << "src,dst,sent,lost\na,b,3,1\n"; });
  fabric::FileText piped(dir + "/fifo");
  writer.join();
  CHECK(piped.text() == "src,dst,sent,lost\na,b,3,1\n");
  try {
    fabric::FileText missing(dir + "/nope.jsonl");
    FAIL("no error");
  } catch (const fabric::InputError& e) {
    CHECK(std::string(e.what()).find(dir + "/nope.jsonl: cannot open") == 0);
  }
}

}  // namespace observation_test

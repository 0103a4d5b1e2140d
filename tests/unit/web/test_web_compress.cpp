// gzip of large API answers (web/compress.h): Accept-Encoding parsing, the encoding itself
// (checked by inflating it with zlib), Api::handle compressing only what it should, and the
// /ports blocks a background reload warms.
#include <catch2/catch.hpp>

#include <zlib.h>

#include "tests/unit/test_web_helpers.h"
#include "web/api_core.h"
#include "web/compress.h"

using namespace ibw;
using namespace ibw::web_test;

namespace web_compress_test {

std::string gunzip(const std::string& z) {
  z_stream zs{};
  REQUIRE(inflateInit2(&zs, 15 + 16) == Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data()));
  zs.avail_in = static_cast<uInt>(z.size());
  std::string out;
  int rc = Z_OK;
  char chunk[65536];
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof chunk;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - zs.avail_out);
  }
  inflateEnd(&zs);
  REQUIRE(rc == Z_STREAM_END);
  return out;
}

std::string header_value(const web::Response& r, const std::string& name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return "";
}

}  // namespace web_compress_test

using namespace web_compress_test;

TEST_CASE("web gzip: Accept-Encoding values", "[web]") {
  CHECK(web::accepts_gzip("gzip"));
  CHECK(web::accepts_gzip("gzip, deflate, br"));
  CHECK(web::accepts_gzip("br;q=1.0, GZIP;q=0.5"));
  CHECK(web::accepts_gzip("x-gzip"));
  CHECK(web::accepts_gzip("*"));
  CHECK(web::accepts_gzip("deflate, *;q=0.1"));
  CHECK_FALSE(web::accepts_gzip(""));
  CHECK_FALSE(web::accepts_gzip("identity"));
  CHECK_FALSE(web::accepts_gzip("deflate, br"));
  CHECK_FALSE(web::accepts_gzip("gzip;q=0"));
  CHECK_FALSE(web::accepts_gzip("gzip; q=0.000, *"));  // gzip named and refused wins over *
  CHECK_FALSE(web::accepts_gzip("*;q=0"));
  CHECK_FALSE(web::accepts_gzip("gzipx"));
}

TEST_CASE("web gzip: the encoding inflates back to the same bytes", "[web]") {
  std::string data;
  for (int i = 0; i < 20000; ++i) data += "{\"node\":\"leaf" + std::to_string(i % 97) + "\"},";
  auto z = web::gzip(data);
  REQUIRE(z.has_value());
  CHECK(z->size() * 10 < data.size());
  CHECK(static_cast<unsigned char>((*z)[0]) == 0x1f);  // gzip magic
  CHECK(static_cast<unsigned char>((*z)[1]) == 0x8b);
  CHECK(gunzip(*z) == data);
  CHECK(gunzip(*web::gzip("")).empty());
}

TEST_CASE("web gzip: large answers are compressed when asked - small ones and assets never",
          "[web]") {
  WebBench b;
  store::WriteBatch batch;
  for (int i = 0; i < 200; ++i)
    batch.events.push_back(port_event(100 + i, kLeaf, 1, "leaf001", "link_down"));
  b.db->write(batch);
  auto api = b.api();
  web::Request plain = request("GET", "/api/v1/events?since=1d&limit=1000");
  web::Response r1 = api->handle(plain);
  REQUIRE(r1.status == 200);
  REQUIRE(r1.body.size() >= web::kMinGzipBytes);
  CHECK(header_value(r1, "Content-Encoding").empty());

  web::Request zipped = plain;
  zipped.headers["accept-encoding"] = "gzip, deflate, br";
  web::Response r2 = api->handle(zipped);
  REQUIRE(r2.status == 200);
  CHECK(header_value(r2, "Content-Encoding") == "gzip");
  CHECK(header_value(r2, "Vary") == "Accept-Encoding");
  CHECK(r2.content_type == "application/json");
  CHECK(r2.body.size() * 5 < r1.body.size());
  CHECK(gunzip(r2.body) == r1.body);

  web::Request small = request("GET", "/api/v1/whoami");
  small.headers["accept-encoding"] = "gzip";
  CHECK(header_value(api->handle(small), "Content-Encoding").empty());
  web::Request error = request("GET", "/api/v1/events?limit=0");
  error.headers["accept-encoding"] = "gzip";
  CHECK(header_value(api->handle(error), "Content-Encoding").empty());
  web::Request asset = request("GET", "/ui/app.js", nullptr);
  asset.headers["accept-encoding"] = "gzip";
  CHECK(header_value(api->handle(asset), "Content-Encoding").empty());
}

TEST_CASE("web gzip: text and precompressed chunks join into one stream", "[web]") {
  std::string a, b, c;
  for (int i = 0; i < 3000; ++i) a += "{\"port\":" + std::to_string(i) + "},";
  for (int i = 0; i < 2000; ++i) b += ",{\"node\":\"leaf" + std::to_string(i % 31) + "\"}";
  c = "]}";
  auto ca = web::deflate_chunk(a);
  auto cb = web::deflate_chunk(b);
  REQUIRE(ca.has_value());
  REQUIRE(cb.has_value());
  CHECK(ca->size == a.size());
  web::GzipJoiner j;
  j.text("{\"head\":1,");
  j.chunk(*ca);
  j.chunk(*cb);  // two chunks in a row
  j.text(c);
  j.chunk(*ca);
  j.text("x");
  auto z = j.finish();
  REQUIRE(z.has_value());
  CHECK(gunzip(*z) == "{\"head\":1," + a + b + c + a + "x");
  web::GzipJoiner only;  // a chunk last: the stream still ends with a final block
  only.chunk(*cb);
  CHECK(gunzip(*only.finish()) == b);
  CHECK(gunzip(*web::GzipJoiner().finish()).empty());
}

TEST_CASE("web gzip: /ports pages built from precompressed blocks inflate to the plain page",
          "[web]") {
  WebBench b;
  store::WriteBatch batch;
  for (int n = 0; n < 15; ++n)  // 600 ports: nine whole blocks of 64 and a partial one
    for (int p = 1; p <= 40; ++p) {
      char name[16];
      std::snprintf(name, sizeof name, "sw%03d", n);
      batch.ports.push_back(port_record(0x1000 + n, p, name, p % 7 == 0 ? 1 : 4, 0, "", 0, ""));
      if (p % 5 == 0) batch.ports.back().deltas[0] = p;
    }
  b.db->write(batch);
  auto api = b.api();
  const char* queries[] = {"",
                           "?offset=1",
                           "?offset=63&limit=200",
                           "?offset=64&limit=64",
                           "?offset=64&limit=65",
                           "?offset=127&limit=130",
                           "?offset=300",
                           "?offset=570",
                           "?limit=5000",
                           "?node=sw003",
                           "?node=0x1007",
                           "?state=down",
                           "?has_errors=true&offset=10",
                           "?state=active&limit=300"};
  int compressed = 0;
  for (const char* q : queries) {
    // Twice: the second list reuses the first one's blocks (ports_cache_us 0: a reload each).
    for (int round = 0; round < 2; ++round) {
      web::Request plain = request("GET", std::string("/api/v1/ports") + q);
      web::Response r1 = api->handle(plain);
      REQUIRE(r1.status == 200);
      web::Request zipped = plain;
      zipped.headers["accept-encoding"] = "gzip";
      web::Response r2 = api->handle(zipped);
      REQUIRE(r2.status == 200);
      INFO(q);
      if (header_value(r2, "Content-Encoding") != "gzip") {
        CHECK(r2.body == r1.body);
        CHECK(r1.body.size() < web::kMinGzipBytes);
        continue;
      }
      ++compressed;
      CHECK(r2.body.size() * 5 < r1.body.size());
      CHECK(gunzip(r2.body) == r1.body);
    }
  }
  CHECK(compressed >= 20);
}

TEST_CASE("web gzip: a reload warms the blocks of changed ports the list it replaces had",
          "[web]") {
  // Two whole blocks of ports; the first list's block 0 was asked for, block 1 never.
  auto list_of = [](uint64_t delta) {
    auto l = std::make_shared<web::PortList>();
    for (int p = 0; p < static_cast<int>(2 * web::PortList::kBlockPorts); ++p) {
      l->ports.push_back(port_record(0x2000 + p / 32, 1 + p % 32, "sw", 4, 0, "", 0, ""));
      l->ports.back().deltas[0] = delta;
      l->ports.back().deltas_valid = 1;
    }
    return l;
  };
  auto first = list_of(1);
  first->prepare(nullptr);
  REQUIRE(first->block(0));
  auto second = list_of(2);  // every port changed: no block can be shared
  second->prepare(first.get());
  CHECK(second->warm_blocks(*first) == 1);
  auto warmed = second->block(0);
  REQUIRE(warmed);
  CHECK(warmed != first->block(0));
  std::string text;  // what block 0 of the second list holds: its own ports' JSON
  for (size_t i = 0; i < web::PortList::kBlockPorts; ++i) text += "," + *second->json[i];
  CHECK(warmed->size == text.size());
  CHECK(warmed->crc ==
        crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size())));
  CHECK(second->warm_blocks(*first) == 0);  // warm now
  auto third = list_of(2);  // nothing changed: the warm block is shared, nothing to do
  third->prepare(second.get());
  CHECK(third->warm_blocks(*second) == 0);
  CHECK(third->block(0) == warmed);
}

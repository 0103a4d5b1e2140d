// core/redact.h and core/utf8.h: URLs, remote answers and untrusted lines made safe to log
// (issue 31: masking comes before cutting), and UTF-8 made valid for a metric label.
#include <catch2/catch.hpp>

#include <string>

#include "core/redact.h"
#include "core/utf8.h"

using namespace ibw;

TEST_CASE("redact: a URL loses its userinfo - query values and key-like path segments", "[core]") {
  CHECK(
      core::mask_url("https://hooks.example.com/services/T0AB12CD/B0EF34GH/abcdefghijklmnopqrstuvwx"
                     "?token=s3cr3t&channel=ops#frag") ==
      "https://hooks.example.com/services/***/***/***?token=***&channel=***#***");
  CHECK(core::mask_url("http://ibw:pa55word@10.0.0.5:8080/hook") ==
        "http://***@10.0.0.5:8080/hook");
  CHECK(core::mask_url("http://127.0.0.1:9000/api/v1/hook") == "http://127.0.0.1:9000/api/v1/hook");
  CHECK(core::mask_url("https://ufm/ufmRestV3/resources/ports?sys=1") ==
        "https://ufm/ufmRestV3/resources/ports?sys=***");
  auto secrets = core::url_secrets("http://ibw:pa55word@h/x/abcdefghijklmnop?k=v4lue&z=1");
  CHECK(secrets == std::vector<std::string>{"pa55word", "abcdefghijklmnop", "v4lue"});
}

TEST_CASE("redact: a secret that straddles the cut is masked before it is cut", "[core]") {
  const std::string secret = "Zq9secretVALUE-0123456789";
  std::string answer = std::string(190, 'x') + secret + " more";
  // Cut first, then masked: the first 10 characters of the secret would survive.
  std::string naive = answer.substr(0, 200);
  CHECK(naive.find(secret.substr(0, 10)) != std::string::npos);
  std::string safe = core::mask_then_cut(answer, {secret}, 200);
  INFO(safe);
  CHECK(safe.find(secret.substr(0, 4)) == std::string::npos);
  CHECK(safe.find("***") != std::string::npos);
  CHECK(safe.size() <= 203);
  // Control characters become spaces; a cut never splits a UTF-8 sequence.
  CHECK(core::mask_then_cut("a\nb\x01", {}, 10) == "a b ");
  std::string cut = core::mask_then_cut("ab\xC3\xA9\xC3\xA9", {}, 3);
  CHECK(cut == "ab...");
}

TEST_CASE("redact: an excerpt of an untrusted line is short and hides token-like runs", "[core]") {
  const std::string token = "Kx81mWq0vYt5Lp2zRb7Nc4";  // as in a tokens file: "admin TOKEN"
  std::string e = core::masked_excerpt("admin " + token, 40);
  INFO(e);
  CHECK(e.find(token.substr(0, 6)) == std::string::npos);
  CHECK(e.rfind("admin Kx***", 0) == 0);
  std::string long_line(100'000, 'a');
  CHECK(core::masked_excerpt("\"" + long_line + "\" is not a number", 40).size() <= 43);
  CHECK(core::masked_excerpt("\"12x\" is not a whole number >= 0", 100) ==
        "\"12x\" is not a whole number >= 0");
}

TEST_CASE("utf8: invalid bytes become U+FFFD and valid text is kept", "[core]") {
  CHECK(core::valid_utf8("leaf\xC3\xA9 01") == "leaf\xC3\xA9 01");
  CHECK(core::valid_utf8("a\xFF"
                         "b") ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(core::valid_utf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  CHECK(core::valid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  CHECK(core::valid_utf8("x\xE2\x82") == "x\xEF\xBF\xBD\xEF\xBF\xBD");                // truncated
  CHECK(core::valid_utf8("\xF0\x9F\x98\x80") == "\xF0\x9F\x98\x80");
}

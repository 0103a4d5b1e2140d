// Fixtures of the HTTPS tests (tests/unit/web/test_web_tls*.cpp): a self-signed certificate for
// localhost and 127.0.0.1 made at test time with the openssl CLI, a second key that does not match
// it, and a libcurl client that trusts that certificate as its CA. Names live in ibw::tls_test.
#pragma once

#include <curl/curl.h>
#include <sys/stat.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "ingest/curl_util.h"
#include "tests/unit/test_store_helpers.h"
#include "web/tls.h"

namespace ibw::tls_test {

// cert.pem + key.pem (EC P-256, CN=localhost, SAN localhost and 127.0.0.1, mode 0600) and
// other_key.pem, in a fresh directory.
struct SelfSigned {
  store_test::TempDir dir;
  std::string cert = dir.file("cert.pem");
  std::string key = dir.file("key.pem");
  std::string other_key = dir.file("other_key.pem");

  SelfSigned() {
    std::string quiet = " >" + dir.file("openssl.log") + " 2>&1";
    std::string req =
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
        " -days 2 -subj /CN=localhost"
        " -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout " +
        key + " -out " + cert + quiet;
    INFO(req);
    REQUIRE(std::system(req.c_str()) == 0);
    std::string other =
        "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out " + other_key + quiet;
    REQUIRE(std::system(other.c_str()) == 0);
    ::chmod(key.c_str(), 0600);
    ::chmod(other_key.c_str(), 0600);
  }
  web::TlsFiles files() const { return {cert, key, dir.file("ibwarden.yaml"), 10, 11}; }
};

struct Answer {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string body;
  std::string error;  // libcurl's message when code is not CURLE_OK
  long connects = 0;  // new connections the request made (0: it reused one)
};

// One libcurl handle, reused across requests (keep-alive), trusting ca_file.
class HttpsClient {
 public:
  explicit HttpsClient(std::string ca_file) : ca_file_(std::move(ca_file)) {
    ingest::curl_util::global_init();
    curl_ = curl_easy_init();
    REQUIRE(curl_ != nullptr);
  }
  ~HttpsClient() { curl_easy_cleanup(curl_); }
  HttpsClient(const HttpsClient&) = delete;
  HttpsClient& operator=(const HttpsClient&) = delete;

  // extra: more setup of the handle for this request (a TLS version, a body).
  template <typename Setup>
  Answer request(const std::string& url, const char* token, Setup&& extra) {
    ingest::curl_util::EasyOptions o;
    o.ca_file = ca_file_;
    o.timeout_ms = 10'000;
    ingest::curl_util::configure_easy(curl_, o);
    Answer a;
    char error[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, &HttpsClient::collect);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &a.body);
    curl_slist* headers = nullptr;
    if (token)
      headers = curl_slist_append(headers, (std::string("Authorization: Bearer ") + token).c_str());
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers);
    extra(curl_);
    a.code = curl_easy_perform(curl_);
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &a.status);
    curl_easy_getinfo(curl_, CURLINFO_NUM_CONNECTS, &a.connects);
    a.error = error;
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, nullptr);
    curl_slist_free_all(headers);
    curl_easy_reset(curl_);
    return a;
  }
  Answer get(const std::string& url, const char* token) {
    return request(url, token, [](CURL*) {});
  }

 private:
  static size_t collect(char* data, size_t size, size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
  }
  CURL* curl_ = nullptr;
  std::string ca_file_;
};

}  // namespace ibw::tls_test

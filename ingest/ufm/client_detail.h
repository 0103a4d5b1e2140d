// Pieces of the UFM client shared by its two files (ingest/ufm/client.cpp: transport, login and
// retries; ingest/ufm/client_auth.cpp: v3 tokens and authentication answers). Includes curl.h:
// only for ingest/ufm/client*.cpp, not for other modules.
#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ingest/curl_util.h"
#include "ingest/ufm/client.h"

namespace ibw::ingest {
namespace ufm_client_detail {

using curl_util::redact_url;

struct Sink {
  std::string body;
  std::string location;
  size_t max = 0;
  size_t received = 0;  // body bytes so far (bounded by max)
  bool too_large = false;
  CURL* curl = nullptr;             // to ask the status of the answer being read
  UfmBodyStream* stream = nullptr;  // takes a 2xx body instead of `body`
  bool stream_failed = false;       // the stream found the body unusable
};

struct Slist {
  curl_slist* list = nullptr;
  ~Slist() { curl_slist_free_all(list); }
  void add(const std::string& line) {
    if (curl_slist* next = curl_slist_append(list, line.c_str())) list = next;
  }
};

struct Exchange {
  CURLcode code = CURLE_OK;
  long status = 0;
  Sink sink;
  std::string curl_error;
};

// A transport error, 5xx or 429 of an authentication exchange (v2 login, v3 token fetch):
// sets r's error (and status) and retryable, and returns true. False when the exchange got
// a final answer, which the caller judges.
bool auth_transport_failed(const Exchange& ex, const std::string& at, UfmResponse& r,
                           bool& retryable);

// The first access token in a GET/POST /app/tokens answer (a list or one object) that is not
// revoked nor expired (issued_at + expires_in, epoch seconds, when both are given); "" if none.
std::string usable_token(const std::string& body, int64_t now_s);

}  // namespace ufm_client_detail

struct UfmClient::Transport {
  CURL* curl = nullptr;
  bool logged_in = false;  // v2 session cookie held
  std::string token;       // v3 access token (configured, or fetched: then `fetched`)
  bool fetched = false;
  ~Transport() { curl_easy_cleanup(curl); }

  ufm_client_detail::Exchange perform(const char* method, const std::string& url,
                                      const std::string* body,
                                      const ufm_client_detail::Slist& headers, size_t max_body,
                                      UfmBodyStream* stream = nullptr) {
    namespace d = ufm_client_detail;
    d::Exchange ex;
    ex.sink.max = max_body;
    ex.sink.curl = curl;
    ex.sink.stream = stream;
    if (stream) stream->begin();
    char errbuf[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &ex.sink);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &ex.sink);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
    if (body) {
      curl_easy_setopt(curl, CURLOPT_POST, 1L);
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body->data());
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST,
                       std::string_view(method) == "POST" ? nullptr : method);
    } else {
      curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, nullptr);
    }
    ex.code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &ex.status);
    if (ex.code != CURLE_OK) ex.curl_error = errbuf[0] ? errbuf : curl_easy_strerror(ex.code);
    // The handle outlives these locals.
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, nullptr);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, nullptr);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, nullptr);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
    return ex;
  }
};

}  // namespace ibw::ingest

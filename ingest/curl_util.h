// What every libcurl user here (the UFM client, the webhook poster) sets up the same way:
// one global init per process, the common options of an easy handle, and URLs and answers
// made safe for error messages. Internal to ibw_ingest and ibw_actions (both link libcurl).
#pragma once

#include <curl/curl.h>

#include <string>
#include <string_view>

namespace ibw::ingest::curl_util {

// curl_global_init once per process; throws std::runtime_error when it fails.
void global_init();

struct EasyOptions {
  long timeout_ms = 5000;  // whole request
  bool verify_tls = true;  // peer certificate and host name
  std::string ca_file;     // PEM bundle; empty = the system's
  const char* user_agent = "ibwarden";
};

// No signals, the timeout, no proxy whatever the environment says, no redirects, http and
// https only, TLS verification as asked.
void configure_easy(CURL* curl, const EasyOptions& options);

// The URL as it may appear in messages (core::mask_url): without "user:password@", query
// values or path segments that look like keys.
std::string redact_url(const std::string& url);
// At most `max` characters of `text` on one line (control characters become spaces).
std::string one_line(std::string_view text, size_t max);

}  // namespace ibw::ingest::curl_util

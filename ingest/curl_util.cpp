#include "ingest/curl_util.h"

#include "core/redact.h"

#include <mutex>
#include <stdexcept>

namespace ibw::ingest::curl_util {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      throw std::runtime_error("curl_global_init failed");
  });
}

void configure_easy(CURL* curl, const EasyOptions& o) {
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, o.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_PROXY, "");  // "" = no proxy, whatever the environment says
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS, long{CURLPROTO_HTTP | CURLPROTO_HTTPS});
#endif
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, o.verify_tls ? 1L : 0L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, o.verify_tls ? 2L : 0L);
  if (!o.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, o.ca_file.c_str());
  curl_easy_setopt(curl, CURLOPT_USERAGENT, o.user_agent);
}

std::string redact_url(const std::string& url) {
  return core::mask_url(url);
}

std::string one_line(std::string_view text, size_t max) {
  std::string out(text.substr(0, max));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

}  // namespace ibw::ingest::curl_util

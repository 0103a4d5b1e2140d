// UTF-8 made valid: text from the fabric (node descriptions are raw bytes) or from files goes
// into formats that must be valid UTF-8 (Prometheus label values, JSON); one bad byte must not
// break the whole output (issue 31: one bad metric label broke the scrape).
#pragma once

#include <string>
#include <string_view>

namespace ibw::core {

// `text` with each byte that does not start or continue a valid UTF-8 sequence (overlong
// forms, surrogates and code points past U+10FFFF included) replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

}  // namespace ibw::core

// Secrets kept out of logs, stored errors and error reports (issue 31). Every message that
// quotes a URL, a remote answer or a line of untrusted input goes through one of these, and
// the masking comes BEFORE any cut: a cut first could leave half a secret that no mask then
// recognizes.
//
// - mask_url: "https://user:pw@host/hook/T0123/abcdefSECRET?token=x" ->
//   "https://***@host/hook/T0123/***?token=***": the userinfo, every query value and every path
//   segment that looks like a key (16+ characters, or 8+ with 3+ digits and 3+ letters) become
//   ***; route names ("ufmRestV3", "api", "v1") stay.
// - url_secrets: those parts themselves, to scrub from a remote answer that echoes them.
// - mask_then_cut: text with each (non-empty) secret replaced by ***, then on one line
//   (control characters become spaces), at most `max` bytes, never cutting a UTF-8 sequence.
// - masked_excerpt: a short excerpt of an untrusted line for an error report: runs that look
//   like keys or tokens (16+ characters of letters, digits and -_+/=.~, as a web token is)
//   keep their first 2 characters then ***, then the text is cut as mask_then_cut.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ibw::core {

std::string mask_url(std::string_view url);
std::vector<std::string> url_secrets(std::string_view url);
std::string mask_then_cut(std::string text, const std::vector<std::string>& secrets, size_t max);
std::string masked_excerpt(std::string_view text, size_t max = 40);
// At most `max` bytes of `text`, shortened to the last whole UTF-8 sequence.
std::string_view utf8_prefix(std::string_view text, size_t max);

}  // namespace ibw::core

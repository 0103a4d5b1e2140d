#include "core/redact.h"

#include <algorithm>
#include <cctype>

namespace ibw::core {
namespace redact_detail {

constexpr std::string_view kMask = "***";

bool key_char(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '-' || c == '_' || c == '+' || c == '/' || c == '=' || c == '.' ||
         c == '~';
}

// A path segment that looks like a key rather than a route name ("ufmRestV3", "v1", "hook"
// stay): 16+ characters, or 8+ with at least 3 digits and 3 letters ("T0AB12CD").
bool secret_segment(std::string_view seg) {
  int digits = 0, letters = 0;
  for (char c : seg) {
    digits += std::isdigit(static_cast<unsigned char>(c)) ? 1 : 0;
    letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
  }
  return seg.size() >= 16 || (seg.size() >= 8 && digits >= 3 && letters >= 3);
}

// The parts of a URL: [scheme://][userinfo@]host[/path][?query][#fragment].
struct UrlParts {
  std::string_view head;      // "https://"
  std::string_view userinfo;  // without '@'; empty when none
  std::string_view host;
  std::string_view path;      // from '/', may be empty
  std::string_view query;     // without '?'
  std::string_view fragment;  // without '#'
};

UrlParts split(std::string_view url) {
  UrlParts p;
  size_t scheme = url.find("://");
  size_t at = scheme == std::string_view::npos ? 0 : scheme + 3;
  p.head = url.substr(0, at);
  size_t end = url.find_first_of("/?#", at);
  if (end == std::string_view::npos) end = url.size();
  std::string_view authority = url.substr(at, end - at);
  if (size_t u = authority.rfind('@'); u != std::string_view::npos)
    p.userinfo = authority.substr(0, u), authority.remove_prefix(u + 1);
  p.host = authority;
  std::string_view rest = url.substr(end);
  if (size_t h = rest.find('#'); h != std::string_view::npos)
    p.fragment = rest.substr(h + 1), rest = rest.substr(0, h);
  if (size_t q = rest.find('?'); q != std::string_view::npos)
    p.query = rest.substr(q + 1), rest = rest.substr(0, q);
  p.path = rest;
  return p;
}

// Calls each(piece, is_secret) for the path's segments and separators.
template <class F>
void for_segments(std::string_view path, F each) {
  size_t at = 0;
  while (at < path.size()) {
    size_t slash = path.find('/', at);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view seg = path.substr(at, slash - at);
    each(seg, secret_segment(seg));
    if (slash < path.size()) each(path.substr(slash, 1), false);
    at = slash + 1;
  }
}

// Calls each(name_with_eq, value) per query parameter ("a=" and "b" of "a=b").
template <class F>
void for_params(std::string_view query, F each) {
  size_t at = 0;
  while (at <= query.size()) {
    size_t amp = query.find('&', at);
    if (amp == std::string_view::npos) amp = query.size();
    std::string_view param = query.substr(at, amp - at);
    size_t eq = param.find('=');
    if (eq == std::string_view::npos)
      each(std::string_view{}, param);  // a bare value may be a key as well
    else
      each(param.substr(0, eq + 1), param.substr(eq + 1));
    at = amp + 1;
  }
}

}  // namespace redact_detail

std::string mask_url(std::string_view url) {
  using namespace redact_detail;
  UrlParts p = split(url);
  std::string out(p.head);
  if (!p.userinfo.empty()) out += std::string(kMask) + "@";
  out += p.host;
  for_segments(p.path, [&](std::string_view s, bool secret) { out += secret ? kMask : s; });
  if (!p.query.empty()) {
    out += '?';
    bool first = true;
    for_params(p.query, [&](std::string_view name, std::string_view value) {
      out += first ? "" : "&";
      first = false;
      out += name;
      if (!value.empty()) out += kMask;
    });
  }
  if (!p.fragment.empty()) out += "#***";
  return out;
}

std::vector<std::string> url_secrets(std::string_view url) {
  using namespace redact_detail;
  UrlParts p = split(url);
  std::vector<std::string> out;
  auto add = [&out](std::string_view s) {
    if (s.size() >= 4) out.emplace_back(s);
  };
  if (!p.userinfo.empty()) {
    size_t colon = p.userinfo.find(':');
    add(p.userinfo.substr(0, colon));
    if (colon != std::string_view::npos) add(p.userinfo.substr(colon + 1));
  }
  for_segments(p.path, [&](std::string_view s, bool secret) {
    if (secret) add(s);
  });
  for_params(p.query, [&](std::string_view, std::string_view value) { add(value); });
  add(p.fragment);
  return out;
}

std::string_view utf8_prefix(std::string_view text, size_t max) {
  if (text.size() <= max) return text;
  size_t end = max;
  // Back over continuation bytes to the lead byte; drop it when its sequence does not fit.
  size_t lead = end;
  while (lead > 0 && (static_cast<unsigned char>(text[lead]) & 0xC0) == 0x80) --lead;
  if (lead < end || (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) end = lead;
  return text.substr(0, end);
}

std::string mask_then_cut(std::string text, const std::vector<std::string>& secrets, size_t max) {
  std::vector<std::string> sorted = secrets;  // longest first: a secret inside another
  std::sort(sorted.begin(), sorted.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& s : sorted) {
    if (s.empty()) continue;
    for (size_t at = text.find(s); at != std::string::npos; at = text.find(s, at + 3))
      text.replace(at, s.size(), redact_detail::kMask);
  }
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  if (text.size() <= max) return text;
  return std::string(utf8_prefix(text, max)) + "...";
}

std::string masked_excerpt(std::string_view text, size_t max) {
  using namespace redact_detail;
  std::string out;
  out.reserve(std::min(text.size(), max * 4 + 16));
  size_t at = 0;
  // Only what can reach the cut is looked at: a run longer than the cut is masked anyway.
  while (at < text.size() && out.size() <= max) {
    if (!key_char(text[at])) {
      out += text[at++];
      continue;
    }
    size_t end = at;
    while (end < text.size() && key_char(text[end])) ++end;
    std::string_view run = text.substr(at, end - at);
    if (run.size() >= 16)
      out += std::string(run.substr(0, 2)) + std::string(kMask);
    else
      out += run.substr(0, max + 1);
    at = end;
  }
  return mask_then_cut(std::move(out), {}, max);
}

}  // namespace ibw::core

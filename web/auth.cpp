#include "web/auth.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "fabric/diagnostics.h"
#include "fabric/text_util.h"

namespace ibw::web {
namespace auth_detail {

constexpr size_t kMinTokenLength = 16;
constexpr size_t kMaxTokenLength = 512;
constexpr size_t kMaxPresentedLength = 4096;

bool token_char(char c) {  // what an Authorization header value can carry: visible ASCII
  return c > 0x20 && c < 0x7f;
}

// Splits on blanks (spaces and tabs).
std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

}  // namespace auth_detail

std::string_view role_name(Role r) {
  switch (r) {
    case Role::viewer:
      return "viewer";
    case Role::operator_:
      return "operator";
    case Role::admin:
      return "admin";
    case Role::none:
      break;
  }
  return "none";
}

std::optional<Role> parse_role(std::string_view s) {
  if (s == "viewer") return Role::viewer;
  if (s == "operator") return Role::operator_;
  if (s == "admin") return Role::admin;
  return std::nullopt;
}

bool constant_time_equal(std::string_view presented, std::string_view expected) {
  // Loop over the presented token only; an empty expected token is compared against a
  // single NUL so the loop body stays the same. Lengths are folded in without branching.
  const char kEmpty = '\0';
  const char* e = expected.empty() ? &kEmpty : expected.data();
  size_t e_len = expected.empty() ? 1 : expected.size();
  volatile unsigned char diff = static_cast<unsigned char>(presented.size() != expected.size());
  for (size_t i = 0; i < presented.size(); ++i)
    diff = diff | static_cast<unsigned char>(presented[i] ^ e[i % e_len]);
  return diff == 0 && !presented.empty();
}

TokenSet TokenSet::parse(std::string_view text, const std::string& file) {
  using namespace auth_detail;
  fabric::DiagnosticSink sink(file);
  TokenSet set;
  set.file_ = file;
  std::unordered_map<std::string, int> seen;  // token -> line
  fabric::text::for_each_line(text, [&](std::string_view raw, int line) {
    std::string_view l = fabric::text::trim(raw);
    if (l.empty() || l.front() == '#') return;
    auto f = fields_of(l);
    if (f.size() != 2) {
      sink.add(line, "", "expected \"ROLE TOKEN\" (" + std::to_string(f.size()) + " fields)");
      return;
    }
    auto role = parse_role(f[0]);
    if (!role) sink.add(line, "role", "must be viewer, operator or admin");
    std::string_view tok = f[1];
    bool ok = true;
    if (tok.size() > kMaxTokenLength) {
      sink.add(line, "token",
               "must be at most " + std::to_string(kMaxTokenLength) + " characters long (it has " +
                   std::to_string(tok.size()) + ")");
      ok = false;
    }
    for (char c : tok) {
      if (!token_char(c)) {
        sink.add(line, "token", "may only hold visible ASCII characters");
        ok = false;
        break;
      }
    }
    if (ok && tok.size() < kMinTokenLength)
      set.warnings_.push_back(file + ":" + std::to_string(line) + ": token: shorter than " +
                              std::to_string(kMinTokenLength) +
                              " characters, easy to guess (openssl rand -base64 24)");
    if (!ok || !role) return;
    auto [it, fresh] = seen.emplace(std::string(tok), line);
    if (!fresh) {
      sink.add(line, "token", "the same token is on line " + std::to_string(it->second));
      return;
    }
    set.entries_.push_back({*role, std::string(tok), line});
  });
  if (sink.empty() && set.entries_.empty()) sink.add(0, "", "no tokens in the file");
  sink.throw_if_any();
  return set;
}

TokenSet TokenSet::load(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw fabric::InputError({{path, 0, "", std::strerror(errno)}});
  if (st.st_mode & S_IWOTH)  // anyone could add an admin token
    throw fabric::InputError(
        {{path, 0, "", "other users may write it (chmod o-rw; tokens are secrets)"}});
  TokenSet set = parse(fabric::read_file(path, fabric::kMaxConfigBytes, "a tokens file"), path);
  if (st.st_mode & S_IROTH)
    set.warnings_.insert(set.warnings_.begin(),
                         path + ": other users may read it (chmod o-r; tokens are secrets)");
  return set;
}

std::optional<TokenSet::Match> TokenSet::find(std::string_view presented) const {
  if (presented.size() > auth_detail::kMaxPresentedLength) return std::nullopt;
  std::optional<Match> found;
  for (const Entry& e : entries_) {
    bool eq = constant_time_equal(presented, e.token);
    if (eq) found = Match{e.role, e.line};  // no break: every entry is compared
  }
  return found;
}

namespace {
std::string prefix_of(std::string_view token) {
  return std::string(token.substr(0, AuthLimiter::kPrefix));
}
}  // namespace

AuthLimiter::Window& AuthLimiter::entry(const std::string& peer, int64_t now_us) {
  auto it = by_peer_.find(peer);
  if (it == by_peer_.end() && by_peer_.size() >= max_addresses_) {
    for (auto e = by_peer_.begin(); e != by_peer_.end();)  // forget ended windows
      e = now_us - e->second.start_us >= window_us_ ? by_peer_.erase(e) : std::next(e);
    if (by_peer_.size() >= max_addresses_) {  // still full: forget the oldest
      auto oldest = by_peer_.begin();
      for (auto e = by_peer_.begin(); e != by_peer_.end(); ++e)
        if (e->second.start_us < oldest->second.start_us) oldest = e;
      by_peer_.erase(oldest);
    }
  }
  Window& w = by_peer_[peer];
  if (now_us - w.start_us >= window_us_) {  // a new window; the good prefixes stay
    w.start_us = now_us, w.failures = 0;
    w.prefixes.clear();
  }
  return w;
}

int64_t AuthLimiter::blocked_for(const std::string& peer, std::string_view token, int64_t now_us) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = by_peer_.find(peer);
  if (it == by_peer_.end()) return 0;
  const Window& w = it->second;
  int64_t end = w.start_us + window_us_;
  if (now_us >= end) return 0;
  std::string prefix = prefix_of(token);
  bool limited = false;
  for (const auto& [p, n] : w.prefixes) limited = limited || (p == prefix && n >= max_failures_);
  if (!limited && w.failures >= 10 * max_failures_)
    limited = std::find(w.good.begin(), w.good.end(), prefix) == w.good.end();
  return limited ? (end - now_us + 999'999) / 1'000'000 : 0;
}

void AuthLimiter::failed(const std::string& peer, std::string_view token, int64_t now_us) {
  std::lock_guard<std::mutex> lock(mutex_);
  Window& w = entry(peer, now_us);
  ++w.failures;
  std::string prefix = prefix_of(token);
  for (auto& [p, n] : w.prefixes)
    if (p == prefix) return void(++n);
  if (w.prefixes.size() < kMaxPrefixes) w.prefixes.emplace_back(prefix, 1);
}

void AuthLimiter::succeeded(const std::string& peer, std::string_view token, int64_t now_us) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string prefix = prefix_of(token);
  auto it = by_peer_.find(peer);
  if (it != by_peer_.end()) {
    auto& good = it->second.good;
    if (std::find(good.begin(), good.end(), prefix) != good.end()) return;
  }
  auto& good = entry(peer, now_us).good;
  if (good.size() < kMaxPrefixes) good.push_back(prefix);
}

size_t AuthLimiter::addresses() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return by_peer_.size();
}

}  // namespace ibw::web

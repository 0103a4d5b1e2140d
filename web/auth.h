// Bearer tokens of the web API (web.tokens_file): roles, the strict tokens-file parser, and
// constant-time lookup.
//
// File format: one "ROLE TOKEN" per line, separated by blanks; ROLE is viewer, operator or
// admin (each includes the ones before it). '#' starts a comment line; blank lines are
// allowed. A token is 16 to 512 characters of [A-Za-z0-9._~+/=-] (RFC 6750 b64token). Every
// problem is reported in one pass as file:line: field: message (fabric::InputError), and a
// message never quotes a token. The same token twice is an error naming the other line.
// load() also refuses a file that other users may read or write (mode o+rw), as ssh does.
//
// Lookup compares the presented token with every entry, without an early exit, and each
// comparison takes a time that depends only on the presented token's length (at most 4 KiB is
// looked at): neither the position of the first differing byte nor the stored tokens' lengths
// leak through timing. Tokens are kept in memory only: never logged, never stored.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ibw::web {

// "operator" is a C++ keyword, hence the underscore.
enum class Role : uint8_t { none = 0, viewer = 1, operator_ = 2, admin = 3 };
std::string_view role_name(Role r);  // "none", "viewer", "operator", "admin"
std::optional<Role> parse_role(std::string_view s);

// True when presented == expected. The time taken depends on presented.size() only.
bool constant_time_equal(std::string_view presented, std::string_view expected);

// Failed logins (unknown tokens), limited per (client address, token prefix): after
// `max_failures` failures of one prefix (the first kPrefix characters of the presented token)
// within a window, that prefix is answered 429 from that address until the window ends, while
// another token from the same address (a colleague behind the same reverse proxy or ssh
// tunnel) still works. An address that fails 10 x max_failures times in a window, over any
// prefixes, is limited for every prefix but those that authenticated from it before (kept
// while its entry lives), so a guesser cannot go round the limit with new prefixes. Fixed
// windows of `window_us`; thread-safe. The table is bounded: at most max_addresses addresses
// (ended windows are forgotten first, then the oldest), kMaxPrefixes prefixes each. Prefixes
// live in memory only.
class AuthLimiter {
 public:
  static constexpr size_t kPrefix = 8;
  static constexpr size_t kMaxPrefixes = 16;
  AuthLimiter(int max_failures, int64_t window_us, size_t max_addresses = 10'000)
      : max_failures_(max_failures), window_us_(window_us), max_addresses_(max_addresses) {}
  // Seconds until `token` may be tried again from `peer`; 0 when it is not limited.
  int64_t blocked_for(const std::string& peer, std::string_view token, int64_t now_us);
  void failed(const std::string& peer, std::string_view token, int64_t now_us);
  void succeeded(const std::string& peer, std::string_view token, int64_t now_us);
  size_t addresses() const;

 private:
  struct Window {
    int64_t start_us = 0;
    int failures = 0;                                   // over every prefix
    std::vector<std::pair<std::string, int>> prefixes;  // failures by prefix
    std::vector<std::string> good;                      // prefixes that authenticated
  };
  Window& entry(const std::string& peer, int64_t now_us);  // under mutex_
  int max_failures_;
  int64_t window_us_;
  size_t max_addresses_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Window> by_peer_;
};

class TokenSet {
 public:
  struct Match {
    Role role = Role::none;
    int line = 0;  // line of the tokens file: identifies the token in logs without showing it
  };

  // Throws fabric::InputError with every bad line (not "ROLE TOKEN", unknown role, a token
  // over 512 characters or with other than visible ASCII, a repeated token); a file with no
  // token is an error too. A token under 16 characters is only a warning (warnings()).
  static TokenSet parse(std::string_view text, const std::string& file);
  // Reads and parses the file. Writable by others: an error; readable by others: a warning.
  static TokenSet load(const std::string& path);
  // "file:line: ..." lines for the daemon's log and check-config; never the token itself.
  const std::vector<std::string>& warnings() const { return warnings_; }

  // The entry holding the presented token, compared against every entry.
  std::optional<Match> find(std::string_view presented) const;
  size_t size() const { return entries_.size(); }
  const std::string& file() const { return file_; }

 private:
  struct Entry {
    Role role;
    std::string token;
    int line;
  };
  std::vector<Entry> entries_;
  std::string file_;
  std::vector<std::string> warnings_;
};

}  // namespace ibw::web

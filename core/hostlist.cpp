#include "core/hostlist.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

namespace ibw::core {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// One bracket group's body ("001-003,7") as the numbers' texts; false with *error set.
bool expand_group(std::string_view body, size_t at, std::vector<std::string>& out,
                  HostlistError* error, size_t max_names) {
  size_t i = 0;
  while (i <= body.size()) {
    size_t comma = body.find(',', i);
    if (comma == std::string_view::npos) comma = body.size();
    std::string_view item = body.substr(i, comma - i);
    size_t dash = item.find('-');
    std::string_view lo = item.substr(0, dash);
    std::string_view hi = dash == std::string_view::npos ? lo : item.substr(dash + 1);
    auto numeric = [](std::string_view s) {
      if (s.empty() || s.size() > 18) return false;
      for (char c : s)
        if (!is_digit(c)) return false;
      return true;
    };
    if (!numeric(lo) || !numeric(hi)) {
      *error = {at + i, "\"" + std::string(item) + "\" is not a number or a range N-M"};
      return false;
    }
    unsigned long long a = std::stoull(std::string(lo)), b = std::stoull(std::string(hi));
    if (b < a) {
      *error = {at + i, "range " + std::string(item) + " runs backwards"};
      return false;
    }
    if (b - a >= max_names || out.size() + (b - a + 1) > max_names) {
      *error = {at + i, "more than " + std::to_string(max_names) + " names"};
      return false;
    }
    size_t width = lo.size() > 1 && lo[0] == '0' ? lo.size() : 0;  // zero-padded as written
    for (unsigned long long v = a; v <= b; ++v) {
      std::string s = std::to_string(v);
      if (s.size() < width) s.insert(0, width - s.size(), '0');
      out.push_back(std::move(s));
    }
    i = comma + 1;
  }
  return true;
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expr, HostlistError* error,
                                         size_t max_names) {
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  size_t i = 0;
  while (i < expr.size()) {
    // One item: up to the next comma outside brackets.
    std::vector<std::string> partial{""};
    size_t start = i;
    while (i < expr.size() && expr[i] != ',') {
      char c = expr[i];
      if (c == '[') {
        size_t close = expr.find(']', i);
        if (close == std::string_view::npos) {
          *error = {i, "'[' without a closing ']'"};
          return {};
        }
        std::vector<std::string> nums;
        if (!expand_group(expr.substr(i + 1, close - i - 1), i + 1, nums, error, max_names))
          return {};
        if (partial.size() * nums.size() + names.size() > max_names) {
          *error = {i, "more than " + std::to_string(max_names) + " names"};
          return {};
        }
        std::vector<std::string> next;
        next.reserve(partial.size() * nums.size());
        for (const auto& p : partial)
          for (const auto& n : nums) next.push_back(p + n);
        partial = std::move(next);
        i = close + 1;
        continue;
      }
      if (c == ']' || c == ' ' || c == '\t' || c == '\n') {
        *error = {i, c == ']' ? "']' without an opening '['" : "a blank inside the list"};
        return {};
      }
      for (auto& p : partial) p.push_back(c);
      ++i;
    }
    if (i == start) {
      *error = {i, "an empty name"};
      return {};
    }
    for (auto& p : partial)
      if (seen.insert(p).second) names.push_back(std::move(p));
    if (i < expr.size()) {
      ++i;  // the comma
      if (i == expr.size()) {
        *error = {i, "an empty name"};
        return {};
      }
    }
  }
  if (names.empty()) *error = {0, "no names"};
  return names;
}

std::string compress_hostlist(const std::vector<std::string>& names) {
  // Group by (prefix, width) of a trailing number; keep first-seen order of groups.
  struct Group {
    std::string prefix;
    size_t width = 0;
    std::vector<unsigned long long> numbers;
  };
  std::vector<Group> groups;
  std::map<std::pair<std::string, size_t>, size_t> index;
  std::vector<std::string> plain;
  std::vector<std::pair<bool, size_t>> order;  // (is group, index)
  // Widths written zero-padded per prefix: an unpadded number of that width joins them
  // (node0999 and node1000 are one run).
  std::set<std::pair<std::string, size_t>> padded;
  for (const auto& n : names) {
    size_t d = n.size();
    while (d > 0 && is_digit(n[d - 1])) --d;
    if (d < n.size() && n.size() - d > 1 && n[d] == '0')
      padded.insert({n.substr(0, d), n.size() - d});
  }
  for (const auto& n : names) {
    size_t d = n.size();
    while (d > 0 && is_digit(n[d - 1])) --d;
    if (d == n.size() || n.size() - d > 18) {
      order.push_back({false, plain.size()});
      plain.push_back(n);
      continue;
    }
    size_t width = n.size() - d;
    auto key = std::make_pair(n.substr(0, d), width);
    if (!padded.count(key)) key.second = 0;
    auto [it, added] = index.emplace(key, groups.size());
    if (added) {
      groups.push_back({key.first, key.second, {}});
      order.push_back({true, it->second});
    }
    groups[it->second].numbers.push_back(std::stoull(n.substr(d)));
  }
  std::string out;
  auto pad = [](unsigned long long v, size_t width) {
    std::string s = std::to_string(v);
    if (s.size() < width) s.insert(0, width - s.size(), '0');
    return s;
  };
  for (auto [is_group, k] : order) {
    if (!out.empty()) out += ',';
    if (!is_group) {
      out += plain[k];
      continue;
    }
    Group& g = groups[k];
    std::sort(g.numbers.begin(), g.numbers.end());
    g.numbers.erase(std::unique(g.numbers.begin(), g.numbers.end()), g.numbers.end());
    if (g.numbers.size() == 1) {
      out += g.prefix + pad(g.numbers[0], g.width);
      continue;
    }
    out += g.prefix + '[';
    for (size_t a = 0; a < g.numbers.size();) {
      size_t b = a;
      while (b + 1 < g.numbers.size() && g.numbers[b + 1] == g.numbers[b] + 1) ++b;
      if (a) out += ',';
      out += pad(g.numbers[a], g.width);
      if (b > a) out += '-' + pad(g.numbers[b], g.width);
      a = b + 1;
    }
    out += ']';
  }
  return out;
}

}  // namespace ibw::core

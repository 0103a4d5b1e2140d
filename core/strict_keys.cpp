#include "core/strict_keys.h"

namespace ibw::core {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t prev = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] != b[j - 1])});
      prev = cur;
    }
  }
  return row[b.size()];
}

std::string KeyTable::known() const {
  std::string list;
  for (auto n : names_) list += (list.empty() ? "" : ", ") + std::string(n);
  return list;
}

std::string_view KeyTable::nearest(std::string_view got) const {
  std::string_view hint;
  size_t best = 3;
  for (auto n : names_)
    if (size_t d = edit_distance(got, n); d < best) best = d, hint = n;
  return hint;
}

namespace {
std::string hint_of(const KeyTable& table, std::string_view got) {
  std::string_view near = table.nearest(got);
  return near.empty() ? "" : " (did you mean \"" + std::string(near) + "\"?)";
}
}  // namespace

std::string KeyTable::unknown_key(std::string_view got) const {
  return "unknown key" + hint_of(*this, got) + "; known: " + known();
}

std::string KeyTable::unknown(std::string_view what, std::string_view got) const {
  return "unknown " + std::string(what) + " \"" + std::string(got) + "\"" + hint_of(*this, got) +
         "; known: " + known();
}

}  // namespace ibw::core

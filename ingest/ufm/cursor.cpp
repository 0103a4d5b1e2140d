// De-duplication, reset detection and the resumable cursor of UFM events; see ufm_cursor.h.
#include "ingest/ufm/cursor.h"

#include <algorithm>
#include <cctype>

#include "ingest/ufm/json.h"

namespace ibw::ingest {
namespace ufm_cursor_detail {

constexpr size_t kRecent = 16;  // accepted (id, stamp) pairs kept to detect reused ids

bool by_id(const UfmEvent& a, const UfmEvent& b) {
  return a.id != b.id ? a.id < b.id : a.timestamp < b.timestamp;
}

}  // namespace ufm_cursor_detail

std::string ufm_stamp_digits(std::string_view timestamp) {
  std::string out;
  for (char c : timestamp) {
    if (out.size() == 14) break;  // whole seconds: "YYYYMMDDHHMMSS"
    if (std::isdigit(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

std::string UfmEventCursor::serialize() const {
  return "ufm1:" + std::to_string(epoch) + ":" + std::to_string(last_id) + ":" +
         (last_stamp.empty() ? std::string("-") : last_stamp);
}

std::optional<UfmEventCursor> UfmEventCursor::parse(const std::string& text) {
  if (text.rfind("ufm1:", 0) != 0) return std::nullopt;
  std::string_view rest = std::string_view(text).substr(5);
  size_t a = rest.find(':');
  if (a == std::string_view::npos) return std::nullopt;
  size_t b = rest.find(':', a + 1);
  if (b == std::string_view::npos) return std::nullopt;
  auto epoch = ufm_json_detail::to_int(rest.substr(0, a));
  auto last = ufm_json_detail::to_int(rest.substr(a + 1, b - a - 1));
  std::string_view stamp = rest.substr(b + 1);
  if (!epoch || !last || *epoch < 0 || *last < 0 || stamp.empty() || stamp.size() > 14)
    return std::nullopt;
  if (stamp != "-" && ufm_stamp_digits(stamp) != stamp) return std::nullopt;
  UfmEventCursor c;
  c.epoch = *epoch;
  c.last_id = *last;
  if (stamp != "-") c.last_stamp = std::string(stamp);
  return c;
}

UfmEventTracker::UfmEventTracker(std::optional<UfmEventCursor> cursor, size_t max_keys)
    : cursor_(cursor.value_or(UfmEventCursor{})), max_keys_(std::max<size_t>(max_keys, 1)) {
  if (cursor_.last_id > 0 && !cursor_.last_stamp.empty())
    recent_.push_back({cursor_.last_id, std::stoull(cursor_.last_stamp)});
}

UfmEventTracker::Key UfmEventTracker::key_of(const UfmEvent& e) {
  Key k{e.id, 0};
  int digits = 0;
  for (char c : e.timestamp) {
    if (digits == 14) break;
    if (c >= '0' && c <= '9') {
      k.stamp = k.stamp * 10 + static_cast<uint64_t>(c - '0');
      ++digits;
    }
  }
  return k;
}

bool UfmEventTracker::remember(const Key& key) {
  if (!keys_.insert(key).second) return false;
  key_order_.push_back(key);
  while (key_order_.size() > max_keys_) {
    keys_.erase(key_order_.front());
    key_order_.pop_front();
  }
  return true;
}

// Keeps the newest fetched events as the ones to check for reused ids.
void UfmEventTracker::recall_tail(const std::vector<UfmEvent>& sorted) {
  recent_.clear();
  size_t from =
      sorted.size() > ufm_cursor_detail::kRecent ? sorted.size() - ufm_cursor_detail::kRecent : 0;
  for (size_t i = from; i < sorted.size(); ++i) recent_.push_back(key_of(sorted[i]));
}

UfmAccepted UfmEventTracker::accept(std::vector<UfmEvent> fetched) {
  namespace d = ufm_cursor_detail;
  UfmAccepted out;
  if (!std::is_sorted(fetched.begin(), fetched.end(), d::by_id))  // UFM lists are in id order
    std::stable_sort(fetched.begin(), fetched.end(), d::by_id);
  auto same = [](const UfmEvent& a, const UfmEvent& b) {
    return a.id == b.id && a.timestamp == b.timestamp;
  };
  size_t before = fetched.size();
  fetched.erase(std::unique(fetched.begin(), fetched.end(), same), fetched.end());
  out.duplicates = before - fetched.size();
  if (fetched.empty()) return out;

  if (cursor_.last_id > 0) {
    if (fetched.back().id < cursor_.last_id) {
      out.reset = true;
    } else {
      for (const Key& r : recent_) {
        auto lo = std::lower_bound(fetched.begin(), fetched.end(), r.id,
                                   [](const UfmEvent& e, int64_t id) { return e.id < id; });
        bool found = false, matches = false;
        for (auto it = lo; it != fetched.end() && it->id == r.id; ++it) {
          found = true;
          matches |= key_of(*it) == r;
        }
        if (found && !matches) {
          out.reset = true;
          break;
        }
      }
    }
  }
  const int64_t after = out.reset ? INT64_MIN : cursor_.last_id;
  // The cursor follows the fetch (not only what was delivered): ids at or below it are old.
  if (out.reset) {
    ++cursor_.epoch;
    recall_tail(fetched);
  }
  cursor_.last_id = fetched.back().id;
  cursor_.last_stamp = ufm_stamp_digits(fetched.back().timestamp);
  for (UfmEvent& e : fetched) {
    if (e.id <= after) continue;
    Key k = key_of(e);
    if (!remember(k)) {
      ++out.duplicates;
      continue;
    }
    if (!out.reset) {
      recent_.push_back(k);
      if (recent_.size() > d::kRecent) recent_.pop_front();
    }
    out.events.push_back(std::move(e));
  }
  return out;
}

void UfmEventTracker::skip(const std::vector<UfmEvent>& fetched) {
  std::vector<UfmEvent> sorted = fetched;
  std::stable_sort(sorted.begin(), sorted.end(), ufm_cursor_detail::by_id);
  for (const UfmEvent& e : sorted) remember(key_of(e));
  if (sorted.empty()) return;
  cursor_.last_id = sorted.back().id;
  cursor_.last_stamp = ufm_stamp_digits(sorted.back().timestamp);
  recall_tail(sorted);
}

}  // namespace ibw::ingest

// Strict parsing of query parameters and JSON bodies, and the store connection cache.
#include <ctime>

#include "fabric/text_util.h"
#include "web/api_core.h"

namespace ibw::web {
namespace api_params_detail {

std::string in_quotes(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Fixed-width decimal field of s at pos; -1 when not all digits.
int field(std::string_view s, size_t pos, size_t len) {
  if (pos + len > s.size() || !all_digits(s.substr(pos, len))) return -1;
  return *fabric::text::to_int<int>(s.substr(pos, len));
}

}  // namespace api_params_detail

Query::Query(const std::vector<std::pair<std::string, std::string>>& items,
             const std::vector<std::string_view>& allowed) {
  using api_params_detail::in_quotes;
  for (const auto& [key, value] : items) {
    bool known = false;
    for (auto a : allowed) known = known || a == key;
    if (!known) throw ApiError(400, "unknown query parameter " + in_quotes(key));
    for (const auto& [k, v] : items_)
      if (k == key) throw ApiError(400, "query parameter " + in_quotes(key) + " given twice");
    items_.emplace_back(key, value);
  }
}

std::optional<std::string> Query::get(std::string_view name) const {
  for (const auto& [k, v] : items_)
    if (k == name) return v;
  return std::nullopt;
}

int64_t Query::integer(std::string_view name, int64_t min, int64_t max, int64_t fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  auto n = fabric::text::to_int<int64_t>(*v);
  if (!n || *n < min || *n > max)
    throw ApiError(400, std::string(name) + ": must be an integer from " + std::to_string(min) +
                            " to " + std::to_string(max));
  return *n;
}

std::optional<bool> Query::boolean(std::string_view name) const {
  auto v = get(name);
  if (!v) return std::nullopt;
  if (*v == "true" || *v == "1") return true;
  if (*v == "false" || *v == "0") return false;
  throw ApiError(400, std::string(name) + ": must be true or false");
}

int64_t Query::time(std::string_view name, int64_t now_us, int64_t fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  if (auto d = fabric::text::parse_duration(*v)) return now_us - *d;
  if (auto t = parse_utc_time(*v)) return *t;
  if (auto epoch = fabric::text::to_int<int64_t>(*v); epoch && *epoch >= 0 && *epoch < (1LL << 40))
    return *epoch * 1'000'000;  // Unix seconds (0: from the start)
  throw ApiError(400, std::string(name) +
                          ": must be a duration (10m), a time (2026-11-22T01:00:00Z, or with an "
                          "offset +01:00) or Unix seconds");
}

std::optional<int64_t> parse_utc_time(std::string_view s) {
  using api_params_detail::field;
  // YYYY-MM-DDTHH:MM:SS
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') ||
      s[13] != ':' || s[16] != ':')
    return std::nullopt;
  std::tm tm{};
  int year = field(s, 0, 4), mon = field(s, 5, 2), day = field(s, 8, 2);
  int hour = field(s, 11, 2), min = field(s, 14, 2), sec = field(s, 17, 2);
  if (year < 1970 || mon < 1 || mon > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 ||
      min < 0 || min > 59 || sec < 0 || sec > 60)
    return std::nullopt;
  tm.tm_year = year - 1900, tm.tm_mon = mon - 1, tm.tm_mday = day;
  tm.tm_hour = hour, tm.tm_min = min, tm.tm_sec = sec;
  std::string_view rest = s.substr(19);
  int64_t frac = 0;
  if (!rest.empty() && rest.front() == '.') {
    size_t n = 1;
    while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') ++n;
    if (n == 1 || n > 10) return std::nullopt;
    std::string digits(rest.substr(1, n - 1));
    digits.resize(6, '0');
    frac = *fabric::text::to_int<int64_t>(digits);
    rest.remove_prefix(n);
  }
  int64_t offset_s = 0;  // "Z", or "+HH:MM" / "-HH:MM" / "+HHMM" / "+HH" east of UTC
  if (rest == "Z" || rest == "z") {
    rest = {};
  } else if (!rest.empty() && (rest.front() == '+' || rest.front() == '-')) {
    int sign = rest.front() == '-' ? -1 : 1;
    std::string digits;
    for (char c : rest.substr(1))
      if (c != ':') digits += c;
    bool colon_ok = rest.size() != 6 || rest[3] == ':';
    if (!colon_ok || (digits.size() != 2 && digits.size() != 4)) return std::nullopt;
    auto hh = fabric::text::to_int<int>(std::string_view(digits).substr(0, 2));
    auto mm = digits.size() == 4 ? fabric::text::to_int<int>(std::string_view(digits).substr(2))
                                 : std::optional<int>(0);
    if (!hh || !mm || *hh > 23 || *mm > 59) return std::nullopt;
    offset_s = sign * (*hh * 3600 + *mm * 60);
    rest = {};
  }
  if (!rest.empty()) return std::nullopt;
  return (static_cast<int64_t>(timegm(&tm)) - offset_s) * 1'000'000 + frac;
}

nlohmann::json body_object(const Request& req, std::initializer_list<std::string_view> allowed) {
  using api_params_detail::in_quotes;
  std::string_view body = fabric::text::trim(req.body);
  if (body.empty()) return nlohmann::json::object();
  std::string type = req.header("content-type");
  std::string_view media = fabric::text::trim(std::string_view(type).substr(0, type.find(';')));
  if (media != "application/json") throw ApiError(415, "Content-Type: must be application/json");
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ApiError(400, "body: not valid JSON");
  if (!j.is_object()) throw ApiError(400, "body: must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (auto a : allowed) known = known || a == key;
    if (!known) throw ApiError(400, "body: unknown field " + in_quotes(key));
  }
  return j;
}

std::string body_string(const nlohmann::json& body, const char* field, size_t max_len) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return "";
  if (!it->is_string()) throw ApiError(400, std::string(field) + ": must be a string");
  const auto& s = it->get_ref<const std::string&>();
  if (s.size() > max_len)
    throw ApiError(400, std::string(field) + ": longer than " + std::to_string(max_len) + " bytes");
  return s;
}

StorePool::Lease::~Lease() {
  if (!s_ || !pool_) return;
  std::lock_guard<std::mutex> lock(pool_->mutex_);
  auto& idle = pool_->idle_[fabric_];
  if (idle.size() < pool_->max_idle_) idle.push_back(std::move(s_));
}

StorePool::Lease StorePool::acquire(const std::string& fabric) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = idle_.find(fabric); it != idle_.end() && !it->second.empty()) {
      auto s = std::move(it->second.back());
      it->second.pop_back();
      return Lease(*this, fabric, std::move(s));
    }
  }
  return Lease(*this, fabric, backend_.open_store(fabric, /*writable=*/false));
}

store::Store& Call::store(StorePool& pool) {
  if (!lease) lease.emplace(pool.acquire(fabric));
  return **lease;
}

}  // namespace ibw::web

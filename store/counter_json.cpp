#include "store/counter_json.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

#include "store/store.h"

namespace ibw::store::counter_json {

namespace json_detail {

template <typename T>
std::string encode_array(const std::array<T, ingest::kCounterCount>& a) {
  std::string out;
  out.reserve(ingest::kCounterCount * 8);
  out.push_back('[');
  char buf[64];
  for (size_t i = 0; i < a.size(); ++i) {
    if (i) out.push_back(',');
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a[i])) {
        out += "\"nan\"";
        continue;
      }
      if (std::isinf(a[i])) {
        out += a[i] > 0 ? "\"inf\"" : "\"-inf\"";
        continue;
      }
    }
    auto res = std::to_chars(buf, buf + sizeof buf, a[i]);
    out.append(buf, res.ptr);
  }
  out.push_back(']');
  return out;
}

[[noreturn]] void malformed(std::string_view what, std::string_view text) {
  std::string shown(text.substr(0, 80));
  throw StoreError("malformed counter array in " + std::string(what) + ": '" + shown + "'");
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

template <typename T>
std::array<T, ingest::kCounterCount> decode_array(std::string_view text, std::string_view what) {
  std::array<T, ingest::kCounterCount> out{};
  const char* p = text.data();
  const char* end = p + text.size();
  auto skip = [&] {
    while (p < end && is_space(*p)) ++p;
  };
  skip();
  if (p == end || *p != '[') malformed(what, text);
  ++p;
  skip();
  size_t n = 0;
  if (p < end && *p == ']') {
    ++p;
  } else {
    for (;;) {
      skip();
      T value{};
      if (p < end && *p == '"') {  // "nan", "inf", "-inf" (rates only)
        const char* q = p + 1;
        while (q < end && *q != '"') ++q;
        if (q == end) malformed(what, text);
        std::string_view word(p + 1, static_cast<size_t>(q - p - 1));
        if constexpr (std::is_floating_point_v<T>) {
          if (word == "nan")
            value = std::numeric_limits<T>::quiet_NaN();
          else if (word == "inf")
            value = std::numeric_limits<T>::infinity();
          else if (word == "-inf")
            value = -std::numeric_limits<T>::infinity();
          else
            malformed(what, text);
        } else {
          malformed(what, text);
        }
        p = q + 1;
      } else if (end - p >= 4 && std::string_view(p, 4) == "null") {
        p += 4;  // unknown: 0
      } else {
        auto res = std::from_chars(p, end, value);
        if (res.ec != std::errc()) malformed(what, text);
        p = res.ptr;
      }
      if (n < out.size()) out[n] = value;  // extra elements (newer counters) are ignored
      ++n;
      skip();
      if (p < end && *p == ',') {
        ++p;
        continue;
      }
      if (p < end && *p == ']') {
        ++p;
        break;
      }
      malformed(what, text);
    }
  }
  skip();
  if (p != end) malformed(what, text);
  return out;
}

}  // namespace json_detail

std::string encode_values(const Values& v) {
  return json_detail::encode_array(v);
}

std::string encode_rates(const Rates& r) {
  return json_detail::encode_array(r);
}

Values decode_values(std::string_view text, std::string_view what) {
  return json_detail::decode_array<uint64_t>(text, what);
}

Rates decode_rates(std::string_view text, std::string_view what) {
  return json_detail::decode_array<double>(text, what);
}

}  // namespace ibw::store::counter_json

// Lenient readers for the JSON that UFM returns, shared by the UFM parsers (ufm_events,
// ufm_resources). UFM versions disagree on types (an event's "type" is the string "352" in
// 6.16 docs, a port's "peer_guid" may be absent, numbers sometimes come as strings), so every
// reader accepts a string or a number and falls back to a default instead of throwing.
// Also the result type of every UFM list parser: UfmParsed<T>.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ingest/ufm/json_scan.h"

namespace ibw::ingest {

// What a list parser found: the records it could read, and what it could not.
template <typename T>
struct UfmParsed {
  bool ok = false;    // the document was valid JSON of the expected shape
  std::string error;  // why not (first 200 characters of the problem), when !ok
  std::vector<T> items;
  size_t skipped = 0;                 // records left out (no usable id / name)
  std::vector<std::string> warnings;  // the first few reasons for skipping
};

namespace ufm_json_detail {

using Json = nlohmann::json;
inline constexpr size_t kMaxWarnings = 8;

inline const Json* field(const Json& o, std::string_view key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return nullptr;
  return &*it;
}

// A string field, a number rendered as text, or "" (missing, null, other types).
inline std::string str(const Json& o, std::string_view key) {
  const Json* v = field(o, key);
  if (!v) return {};
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number_integer()) return std::to_string(v->get<int64_t>());
  if (v->is_number_unsigned()) return std::to_string(v->get<uint64_t>());
  if (v->is_number_float()) return v->dump();
  if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
  return {};
}

inline std::optional<int64_t> to_int(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// An integer field given as a number or as a decimal string; a float beyond int64 is none.
inline std::optional<int64_t> integer(const Json& o, std::string_view key) {
  const Json* v = field(o, key);
  if (!v) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_unsigned()) return static_cast<int64_t>(v->get<uint64_t>());
  if (v->is_number_float()) {
    double d = v->get<double>();
    if (!(d > -9.2e18 && d < 9.2e18)) return std::nullopt;
    return static_cast<int64_t>(d);
  }
  if (v->is_string()) return to_int(v->get_ref<const std::string&>());
  return std::nullopt;
}

inline int64_t integer_or(const Json& o, std::string_view key, int64_t fallback) {
  return integer(o, key).value_or(fallback);
}

// A list of strings ("enabled_speed": ["HDR", "NDR"]); a lone string gives one element.
inline std::vector<std::string> str_list(const Json& o, std::string_view key) {
  std::vector<std::string> out;
  const Json* v = field(o, key);
  if (!v) return out;
  if (v->is_string()) {
    out.push_back(v->get<std::string>());
  } else if (v->is_array()) {
    for (const Json& e : *v)
      if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

// A GUID written "0x0002c90200404f80", "0002c90200404f80" or "2c90200404f80"; 0 if not one.
inline uint64_t parse_guid(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return 0;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return 0;
  return v;
}

inline uint64_t guid(const Json& o, std::string_view key) {
  return parse_guid(str(o, key));
}

inline void warn(std::vector<std::string>& warnings, std::string text) {
  if (warnings.size() < kMaxWarnings) warnings.push_back(std::move(text));
}

// One element of a scanned array (json_scan.h) as a small document, for the readers below.
// Sets *bad when a member is a number or nested value the whole-document parser would
// reject (a number out of double range, say): the document is then not valid JSON.
Json element_json(const std::vector<JsonMember>& members, bool is_object, bool* bad);

// Parses a document that must be an array of records (or, with data_key, an object whose
// data_key member is that array, as the paged form of /resources/links is). Calls
// read(record, index, result) for each element. A top-level array (every list UFM answers
// unpaged, /resources/ports among them: hundreds of megabytes on a 400,000-port fabric) is
// scanned element by element (json_scan.h), so only one record is a DOM at a time; other
// documents are parsed whole.
template <typename T, typename Read>
UfmParsed<T> parse_list(std::string_view text, const char* what, Read read,
                        const char* data_key = nullptr) {
  UfmParsed<T> result;
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '[') {
    size_t index = 0;
    bool rejected = false;
    std::string err = scan_json_array(text, [&](const std::vector<JsonMember>& m, bool obj) {
      if (rejected) return;
      Json element = element_json(m, obj, &rejected);
      if (!rejected) read(element, index++, result);
    });
    if (!err.empty() || rejected) {
      UfmParsed<T> bad;
      bad.error = std::string(what) + ": response is not valid JSON";
      return bad;
    }
    result.ok = true;
    return result;
  }
  Json doc = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    result.error = std::string(what) + ": response is not valid JSON";
    return result;
  }
  const Json* list = &doc;
  if (data_key && doc.is_object() && doc.contains(data_key)) list = &doc[data_key];
  if (!list->is_array()) {
    result.error = std::string(what) + ": expected a JSON array, got " + list->type_name();
    return result;
  }
  result.ok = true;
  result.items.reserve(list->size());
  size_t index = 0;
  for (const Json& rec : *list) read(rec, index++, result);
  return result;
}

}  // namespace ufm_json_detail
}  // namespace ibw::ingest

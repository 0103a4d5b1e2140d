// Lenient readers for the JSON that UFM returns, shared by the UFM parsers (ufm_events,
// ufm_resources). UFM versions disagree on types (an event's "type" is the string "352" in
// 6.16 docs, a port's "peer_guid" may be absent, numbers sometimes come as strings), so every
// reader accepts a string or a number and falls back to a default instead of throwing.
// Also the result type of every UFM list parser: UfmParsed<T>.
#pragma once

#include <charconv>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ingest/ufm/json_scan.h"
#include "ingest/ufm/json_stream.h"

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

// A list document (an array of records or, with data_key, an object whose data_key member is
// that array, as the paged form of /resources/links is) read piece by piece as it arrives:
// read(record, index, result) is called for each element. A top-level array (every list UFM
// answers unpaged, /resources/ports among them: hundreds of megabytes on a 400,000-port fabric)
// is scanned element by element as its text comes (json_stream.h), so neither the text nor a
// DOM of it is ever whole: one record is a DOM at a time. Other documents are kept and parsed
// whole at finish(). The result is the same whatever the pieces.
template <typename T>
class ListStream {
 public:
  using Read = std::function<void(const Json& record, size_t index, UfmParsed<T>& out)>;
  ListStream(const char* what, Read read, const char* data_key = nullptr)
      : what_(what), data_key_(data_key), read_(std::move(read)) {}

  // The next bytes; false once the document is known to be unusable (finish() says why).
  bool feed(std::string_view bytes) {
    if (mode_ == Mode::undecided) {
      size_t first = bytes.find_first_not_of(" \t\r\n");
      if (first == std::string_view::npos) {
        whole_.append(bytes);  // leading white space: the kind of document is not known yet
        return true;
      }
      mode_ = bytes[first] == '[' ? Mode::array : Mode::whole;
      if (mode_ == Mode::array && !whole_.empty()) {
        array_.feed(whole_, on_element());
        whole_.clear();
      }
    }
    if (mode_ == Mode::whole) {
      whole_.append(bytes);
      return true;
    }
    return array_.feed(bytes, on_element()) && !rejected_;
  }

  // The records read so far, handed over (for a caller that does not keep them all).
  std::vector<T> take_items() { return std::exchange(result_.items, {}); }

  // The end of the document: what was read, or why the document is unusable.
  UfmParsed<T> finish() {
    if (mode_ == Mode::array) {
      std::string err = array_.finish(on_element());
      if (!err.empty() || rejected_) return invalid();
      result_.ok = true;
      return std::move(result_);
    }
    Json doc = Json::parse(whole_.begin(), whole_.end(), nullptr, /*allow_exceptions=*/false);
    std::string().swap(whole_);
    if (doc.is_discarded()) return invalid();
    const Json* list = &doc;
    if (data_key_ && doc.is_object() && doc.contains(data_key_)) list = &doc[data_key_];
    if (!list->is_array()) {
      result_.error = std::string(what_) + ": expected a JSON array, got " + list->type_name();
      return std::move(result_);
    }
    result_.ok = true;
    result_.items.reserve(list->size());
    size_t index = 0;
    for (const Json& rec : *list) read_(rec, index++, result_);
    return std::move(result_);
  }

 private:
  enum class Mode : uint8_t { undecided, array, whole };
  JsonArrayStream::OnElement on_element() {
    return [this](const std::vector<JsonMember>& m, bool obj) {
      if (rejected_) return;
      Json element = element_json(m, obj, &rejected_);
      if (!rejected_) read_(element, index_++, result_);
    };
  }
  UfmParsed<T> invalid() const {
    UfmParsed<T> bad;
    bad.error = std::string(what_) + ": response is not valid JSON";
    return bad;
  }

  const char* what_;
  const char* data_key_;
  Read read_;
  Mode mode_ = Mode::undecided;
  JsonArrayStream array_;
  std::string whole_;  // a document that is not a top-level array (or white space so far)
  UfmParsed<T> result_;
  size_t index_ = 0;
  bool rejected_ = false;  // an element the whole-document parser would reject
};

// A whole list document parsed at once (ListStream fed one piece).
template <typename T, typename Read>
UfmParsed<T> parse_list(std::string_view text, const char* what, Read read,
                        const char* data_key = nullptr) {
  ListStream<T> stream(what, std::move(read), data_key);
  stream.feed(text);
  return stream.finish();
}

}  // namespace ufm_json_detail
}  // namespace ibw::ingest

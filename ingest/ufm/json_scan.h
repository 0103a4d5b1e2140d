// A fast, strict reader for the one large document UFM returns: GET /app/events, a JSON array
// of flat objects (tens of megabytes for a 50,000-event backlog; UFM has no paging for it,
// ufm-api.md §2). It validates the whole text as JSON (RFC 8259: strings with escapes and
// surrogate pairs, the number grammar, literals, nesting up to 64 levels) but builds no
// document: each array element is handed to a callback as a list of its members, with
// strings decoded and everything else as literal text. Nested members (objects, arrays) are
// validated and passed as raw text.
// The nlohmann DOM remains the parser for the small documents (ufm_json.h); this one exists
// for speed (see the backlog figures in the README of tests/ufm_emulator).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ibw::ingest {

struct JsonMember {
  enum class Type : uint8_t { null, boolean, number, string, nested };
  std::string_view key;  // decoded
  Type type = Type::null;
  std::string_view text;  // string: decoded; number/boolean: the literal; nested: raw JSON
};

// Calls on_element(members, is_object) for each element of the top-level array, in order
// (members is empty when the element is not an object). The views are valid during the call
// only. Returns "" on success, else why the text is not a JSON array ("offset 1234: expected
// ',' or ']'"); elements before the problem have been handed out already.
std::string scan_json_array(
    std::string_view text,
    const std::function<void(const std::vector<JsonMember>& members, bool is_object)>& on_element);

}  // namespace ibw::ingest

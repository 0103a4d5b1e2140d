// Strict reader of a JSON array of flat objects, whole document at once; see json_scan.h.
#include "ingest/ufm/json_scan.h"

#include <charconv>

#include "ingest/ufm/json.h"
#include "ingest/ufm/json_scanner.h"

namespace ibw::ingest {

std::string scan_json_array(
    std::string_view text,
    const std::function<void(const std::vector<JsonMember>& members, bool is_object)>& on_element) {
  return ufm_json_scan_detail::Scanner(text).run(on_element);
}

}  // namespace ibw::ingest

namespace ibw::ingest::ufm_json_detail {

Json element_json(const std::vector<JsonMember>& members, bool is_object, bool* bad) {
  if (!is_object) return Json();  // the readers only take objects
  Json o = Json::object();
  for (const JsonMember& m : members) {
    Json& v = o[std::string(m.key)];
    switch (m.type) {
      case JsonMember::Type::null:
        break;
      case JsonMember::Type::boolean:
        v = m.text == "true";
        break;
      case JsonMember::Type::string:
        v = std::string(m.text);
        break;
      case JsonMember::Type::number: {
        int64_t i = 0;
        auto [end, ec] = std::from_chars(m.text.data(), m.text.data() + m.text.size(), i);
        if (ec == std::errc() && end == m.text.data() + m.text.size())
          v = i;
        else
          v = Json::parse(m.text, nullptr, /*allow_exceptions=*/false);
        break;
      }
      case JsonMember::Type::nested:
        v = Json::parse(m.text, nullptr, /*allow_exceptions=*/false);
        break;
    }
    if (v.is_discarded()) *bad = true;
  }
  return o;
}

}  // namespace ibw::ingest::ufm_json_detail

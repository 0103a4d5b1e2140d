// json_text: JSON as ibwarden stores, sends and logs it. Text from outside (UFM descriptions,
// plan and node names) may hold bytes that are not UTF-8, on which nlohmann's dump() throws;
// here they become U+FFFD, so one bad name cannot fail a decision, an order or a request.
#pragma once

#include <string>

namespace ibw::fabric {

// j.dump(indent) with invalid UTF-8 replaced; for nlohmann::json and nlohmann::ordered_json.
template <typename Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace ibw::fabric

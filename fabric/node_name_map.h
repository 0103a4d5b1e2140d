// Node-name-map files in the infiniband-diags format: one `0xGUID "name"` per line, `#`
// comments, blank lines ignored. Names override NodeDescription for display and matching.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "fabric/model.h"

namespace ibw::fabric {

using NodeNameMap = std::unordered_map<uint64_t, std::string>;

// Pure parser; throws InputError listing every bad line (file:line: guid|name: message).
NodeNameMap parse_node_name_map(std::string_view text, const std::string& file);
NodeNameMap load_node_name_map(const std::string& path);

// Sets every node's display name: map entry > NodeDescription > source id > GUID; then
// rebuilds the fabric's lookup index.
void apply_node_names(Fabric& fabric, const NodeNameMap* map);

}  // namespace ibw::fabric

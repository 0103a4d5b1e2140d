// Loader (a): `ibnetdiscover` text output as printed by infiniband-diags 44, comments
// included (they carry NodeDescription, LIDs and the active width/speed, e.g. "4xHDR").
// ibsim net files use the same grammar without GUIDs or comments and are accepted too.
// Pure function over text; no I/O except in load_ibnetdiscover_file().
#pragma once

#include <string>
#include <string_view>

#include "fabric/model.h"

namespace ibw::fabric {

// Parses the text into a fabric. Display names and the name index are not built yet: call
// apply_node_names() before resolving names.
// Throws InputError listing every malformed line as file:line: field: message.
Fabric parse_ibnetdiscover(std::string_view text, const std::string& file);
Fabric load_ibnetdiscover_file(const std::string& path);

}  // namespace ibw::fabric

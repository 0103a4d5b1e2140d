#include "core/remedy_records.h"

#include <cinttypes>
#include <cstdio>
#include <utility>

namespace ibw::core {

namespace remedy_key_detail {

std::string link_end(uint64_t guid, int port) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64 "/%d", guid, port);
  return buf;
}

}  // namespace remedy_key_detail

std::string link_key(uint64_t guid_a, int port_a, uint64_t guid_b, int port_b) {
  using remedy_key_detail::link_end;
  if (guid_b == 0) return link_end(guid_a, port_a);
  if (guid_a == 0) return link_end(guid_b, port_b);
  if (std::pair(guid_b, port_b) < std::pair(guid_a, port_a)) {
    std::swap(guid_a, guid_b);
    std::swap(port_a, port_b);
  }
  return link_end(guid_a, port_a) + "~" + link_end(guid_b, port_b);
}

}  // namespace ibw::core

// Lenient parsing of the free text and object fields of UFM events, to find the ports an event
// is about. Nothing here fails: whatever can be found is returned, the rest stays empty/0.
// Shapes (../shared/reference/ufm-api.md §3.1, §3.7, §4; IMB = imbue cluster-health):
//  - link ends in descriptions [H, IMB]:
//      "Link went down: (Switch:T3-E21:1/17/1)9c0591030090e000:33 - (Switch:T4-E45:1/4/2)
//       fc6a1c0300244e00:8, cable S/N: MT2330FT09118"
//    i.e. "(<type>:<name>:<label>)<guid>:<port number>". The name may be a host's node
//    description with spaces; type is up to the first ':', the label after the last one.
//  - 702 [H, IMB]: "Peer Port <name>:<label> is considered by SM as unhealthy due to FLAPPING."
//  - object_name: a port name "<guid>_<port number>" [H, D-PO], or a system GUID.
//  - object_path: "default / Switch: sw1 / 1/3/1", "default(5) / Switch: sw / 1/26/2" [H].
// Port labels such as "1/17/1" (NDR/XDR cage/split) are kept as text; a label that is a
// plain number is also the port number. Turning other labels into port numbers needs UFM's
// port list (UfmPortIndex in ufm_resources.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibw::ingest {

struct UfmPortRef {
  std::string node_type;  // "Switch", "Computer", ... (empty when unknown)
  std::string node;       // UFM's system name / node description
  std::string label;      // port label as UFM prints it ("1/17/1", "33", "HCA-1/1")
  uint64_t guid = 0;      // node or system GUID
  int port = 0;           // port number; 0 when unknown

  bool empty() const { return node.empty() && guid == 0; }
  bool operator==(const UfmPortRef&) const = default;
};

struct UfmDescription {
  std::optional<UfmPortRef> first;   // first "(...)guid:port" end, or the 702 "Peer Port"
  std::optional<UfmPortRef> second;  // the other end of a link
  std::string cable_sn;              // "cable S/N: X"
  std::string reason;                // "due to FLAPPING" -> "FLAPPING"
};

UfmDescription parse_ufm_description(std::string_view text);

// "<guid>_<num>" (guid with or without 0x) -> guid and port; a bare GUID -> guid, port 0.
std::optional<UfmPortRef> parse_ufm_port_name(std::string_view name);
// "<site> / <Type>: <name> / <label...>" -> type, name, label (and port when the label is a
// number); nullopt when the path names no object below the site.
std::optional<UfmPortRef> parse_ufm_object_path(std::string_view path);
// "b83fd20300000001_3": the port name UFM uses in URLs, actions and isolation requests.
std::string ufm_port_name(uint64_t guid, int port);

// The reporting port and its peer for one event, from the description (link ends, the 702
// peer) and the object fields:
//  - 328/329: the description's first end is the port, the second its peer;
//  - 702: the object is the port, the description's "Peer Port" its peer;
//  - others: the object is the port; a description end that is another port is the peer.
// Object name and path are merged (GUID and number from the name, type, name and label from
// the path).
struct UfmEventEnds {
  UfmPortRef port;
  UfmPortRef peer;
  UfmDescription description;
};
UfmEventEnds ufm_event_ends(int type, std::string_view description, std::string_view object_name,
                            std::string_view object_path);

}  // namespace ibw::ingest

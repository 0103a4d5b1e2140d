// The fabric model: nodes (switches, CAs, routers) and their ports, with the link between two
// ports stored on both ends. Loaders (ibnetdiscover text, libibnetdisc live or cache) fill it;
// the audit and later the watcher read it. Not thread-safe; build once, then share as const.
//
// Port notation used everywhere a human reads or types a port: `NODE/PORT` where NODE is the
// node's display name (e.g. `leaf003/17`, `node0042 mlx5_0/1`), or `0xGUID/PORT`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fabric/flat_map.h"
#include "fabric/speed.h"

namespace ibw::fabric {

enum class NodeType : uint8_t { unknown = 0, ca, sw, router };
std::string_view node_type_name(NodeType t);  // "CA", "Switch", "Router", "?"
// PortInfo.PortState: "Down", "Init", "Armed", "Active" ("NoChange" for 0 in a Set, "?").
std::string_view port_state_name(int state);
// PortInfo.PortPhysicalState: "Sleep", "Polling", "Disabled", "LinkUp", ... ("?").
std::string_view phys_state_name(int state);

inline constexpr uint32_t kNoNode = UINT32_MAX;
inline constexpr uint8_t kPhysDisabled = 3;  // PortInfo.PortPhysicalState Disabled

struct Port {
  int number = 0;
  bool present = false;       // the loader saw this port
  uint16_t lid = 0;           // for switch ports: the switch's port-0 LID
  uint8_t state = 0;          // PortInfo.PortState: 1 Down, 2 Init, 3 Armed, 4 Active; 0 unknown
  uint8_t phys_state = 0;     // PortInfo.PortPhysicalState: 2 Polling, 3 Disabled, 5 LinkUp ...
  uint8_t width_active = 0;   // lanes; 0 unknown
  uint8_t width_enabled = 0;  // widest enabled, lanes; 0 unknown
  uint8_t width_supported = 0;
  Speed speed_active = Speed::unknown;
  Speed speed_enabled = Speed::unknown;
  Speed speed_supported = Speed::unknown;
  uint32_t peer_node = kNoNode;
  int peer_port = 0;

  bool has_peer() const { return peer_node != kNoNode; }
};

// The best rate a link can come up at: the narrower width and the slower speed both ends
// enable (0 / unknown when the far end is not known or one end does not say). A link up below
// it is degraded; one up at it is as configured, even when one end could do more.
struct EnabledRate {
  int width = 0;
  Speed speed = Speed::unknown;
};
EnabledRate enabled_rate(const Port& near, const Port* far);

struct Node {
  uint64_t guid = 0;  // 0 when the source had none (ibsim net files)
  NodeType type = NodeType::unknown;
  std::string id;           // the source's own key, e.g. "S-0002c90200404f80" or "leaf003"
  std::string description;  // NodeDescription
  std::string name;         // display name: node-name-map > description > id/GUID
  int num_ports = 0;
  std::vector<Port> ports;  // index = port number; size num_ports + 1

  Port* port(int number);
  const Port* port(int number) const;
};

// Parsed `NODE/PORT` or `0xGUID/PORT`.
struct PortSpec {
  std::string node;              // as written (for GUID form, the "0x..." text)
  std::optional<uint64_t> guid;  // set for the GUID form
  int port = 0;
};
// Splits at the last '/'; the port must be 0-255. Returns nullopt and sets *error otherwise.
std::optional<PortSpec> parse_port_spec(std::string_view text, std::string* error);
std::string format_guid(uint64_t guid);                     // "0x0002c90200404f80"
std::optional<uint64_t> parse_guid(std::string_view text);  // "0x..." or bare hex

class Fabric {
 public:
  // Adds a node; its ports vector is sized to num_ports + 1. Returns its index.
  uint32_t add_node(Node node);
  // Records a link on both ends, growing port vectors if needed.
  void connect(uint32_t a, int a_port, uint32_t b, int b_port);

  size_t size() const { return nodes_.size(); }
  Node& node(uint32_t i) { return nodes_[i]; }
  const Node& node(uint32_t i) const { return nodes_[i]; }
  const std::vector<Node>& nodes() const { return nodes_; }

  // Rebuilds the name index; call after the last add_node() or rename, before resolve().
  // (The GUID index is kept up to date by add_node().)
  void reindex();
  uint32_t find_guid(uint64_t guid) const;
  // Resolves a name as a human writes it: display name, NodeDescription, id, or 0xGUID.
  // Returns kNoNode when absent; sets *ambiguous when several nodes carry the name.
  uint32_t resolve(std::string_view name, bool* ambiguous = nullptr) const;

  // Number of links (each counted once).
  size_t link_count() const;
  // `NODE/PORT` with the display name.
  std::string port_label(uint32_t node, int port) const;

 private:
  struct NameEntry {
    std::string_view name;  // view into a Node's strings; valid until the next add_node()
    uint32_t node;          // or kAmbiguous when several nodes carry the name
  };
  std::vector<Node> nodes_;
  FlatMap64 by_guid_;
  StringIndex by_name_;  // name -> index into names_
  std::vector<NameEntry> names_;
};

}  // namespace ibw::fabric

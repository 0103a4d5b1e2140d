// Internal to the audit: shared state of one run, split over audit.cpp (link-level
// classification) and audit_nodes.cpp (absent/unknown nodes and partitions).
#pragma once

#include <unordered_map>

#include "fabric/audit.h"
#include "fabric/flat_map.h"

namespace ibw::fabric::detail {

using PortKey = uint64_t;
inline PortKey port_key(uint32_t node, int port) {
  return (static_cast<uint64_t>(node) << 8) | static_cast<uint8_t>(port);
}
inline uint32_t key_node(PortKey k) {
  return static_cast<uint32_t>(k >> 8);
}
inline int key_port(PortKey k) {
  return static_cast<int>(k & 0xff);
}

enum class LinkState : uint8_t { pending, ok, degraded, reported };

struct AuditContext {
  const Plan& plan;
  const Fabric& fabric;
  AuditResult out;

  std::vector<uint32_t> a_node, b_node;         // per planned link; kNoNode if absent
  std::vector<LinkState> state;                 // per planned link
  std::vector<uint8_t> planned_node;            // per fabric node
  std::vector<std::string> plan_name;           // per fabric node: plan's spelling
  FlatMap64 planned_port;                       // fabric port -> planned link
  std::vector<std::string_view> node_location;  // per fabric node: first plan location

  AuditContext(const Plan& p, const Fabric& f) : plan(p), fabric(f) {}

  // Fabric port as a human reads it, using the plan's spelling for planned nodes.
  std::string label(uint32_t node, int port) const;
  std::string label(PortKey k) const { return label(key_node(k), key_port(k)); }
  static std::string plan_label(const PlanEnd& e) { return e.node + "/" + std::to_string(e.port); }
  const Port* fabric_port(uint32_t node, int port) const;
  // The far end of a fabric port, or nullopt.
  std::optional<PortKey> peer_of(uint32_t node, int port) const;
  // Location of a fabric port: its plan entry, else its node's; empty when unknown.
  std::string location_of(PortKey k) const;

  void add(Finding f);
  // Appends both ends' locations of planned link i.
  void add_locations(Finding& f, size_t i) const;
};

// audit_nodes.cpp
void audit_absent_nodes(AuditContext& ctx);
void audit_found_partitions(AuditContext& ctx);
void audit_found_links(AuditContext& ctx);

}  // namespace ibw::fabric::detail

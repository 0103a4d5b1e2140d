// Correlator: attaches fabric and plan context to events. Built once per topology (and
// rebuilt after re-discovery): node GUID + port -> display name, LID, peer and cable ID
// (from the cabling plan when one is configured). Pure and read-only after construction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "fabric/flat_table.h"
#include "fabric/model.h"
#include "fabric/plan.h"
#include "ingest/event.h"

namespace ibw::ingest {

struct PortContext {
  std::string node;
  uint16_t lid = 0;
  uint64_t peer_guid = 0;
  std::string peer_node;
  int peer_port = 0;
  std::string cable_id;
};

class Correlator {
 public:
  // plan may be null. The fabric must have names applied (fabric::apply_node_names).
  Correlator(const fabric::Fabric& fabric, const fabric::Plan* plan);

  // Fills node/peer/cable (and node_guid from the LID when only a LID is known).
  void enrich(Event& e) const;
  std::optional<PortContext> port(uint64_t guid, int port) const;
  // Whether the fabric has that port (port() without copying its context).
  bool has_port(uint64_t guid, int port) const { return ports_.contains(key(guid, port)); }
  // Asks for the memory has_port(guid, port) will read (FlatTable::prefetch): for a pass over
  // a scrape's readings, a few ahead.
  void prefetch_port(uint64_t guid, int port) const { ports_.prefetch(key(guid, port)); }
  // Cable planned at a port, whether or not it is currently up; empty when unplanned.
  std::string cable_at(uint64_t guid, int port) const;
  std::string node_name(uint64_t guid) const;
  uint64_t guid_of_lid(uint16_t lid) const;

 private:
  static uint64_t key(uint64_t guid, int port) { return fabric::planned_cable_key(guid, port); }
  fabric::FlatTable<PortContext> ports_;              // looked up for every reading of every scrape
  std::unordered_map<uint64_t, std::string> cables_;  // key(guid, port) -> cable id
  std::unordered_map<uint64_t, std::string> names_;   // guid -> display name
  std::unordered_map<uint16_t, uint64_t> lids_;       // LID -> node guid
};

}  // namespace ibw::ingest

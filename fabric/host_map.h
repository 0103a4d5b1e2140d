// Which Slurm node each host channel adapter (CA) of the fabric belongs to (issue 33).
//
// By default a CA's Slurm node is the first word of its NodeDescription when the description
// has the usual `hostname hca` form (`node0042 mlx5_0`: a host name, one space, a device name
// such as mlx5_0 or hfi1_1). A map file overrides or fills in: one `KEY NODE` per line, KEY a
// CA's 0x-GUID or its fabric name in quotes or as one word, `#` comments. A CA with neither a
// map entry nor a description of that form is listed as unmapped: never guessed (a default
// description such as "MT4123 ConnectX6 Mellanox Technologies" names no host). A Slurm node may
// have several CAs (multi-rail GPU hosts).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fabric/model.h"

namespace ibw::fabric {

// Explicit entries of a map file: by CA GUID, and by fabric name.
struct HostMapFile {
  std::unordered_map<uint64_t, std::string> by_guid;
  std::unordered_map<std::string, std::string> by_name;
};
// Pure parser; throws InputError listing every bad line (file:line: key|node: message).
HostMapFile parse_host_map(std::string_view text, const std::string& file);
HostMapFile load_host_map(const std::string& path);

// The host name of a `hostname hca` NodeDescription, or nullopt for any other form.
std::optional<std::string> host_of_description(std::string_view description);
// True when `name` is a valid Slurm node name (letters, digits, '-', '_', '.'; 1-64 chars).
bool valid_node_name(std::string_view name);

class HostMap {
 public:
  // Maps every CA of `fabric` (file entries first, then descriptions).
  HostMap(const Fabric& fabric, const HostMapFile* file);

  struct Entry {
    uint32_t ca = kNoNode;  // fabric node index
    std::string node;       // Slurm node name
    bool from_file = false;
  };
  const std::vector<Entry>& mapped() const { return mapped_; }
  const std::vector<uint32_t>& unmapped() const { return unmapped_; }  // CA indices
  // The Slurm node of a CA (fabric node index), or nullptr.
  const std::string* node_of(uint32_t ca) const;
  // The CAs of a Slurm node (empty when unknown).
  const std::vector<uint32_t>& cas_of(std::string_view node) const;

 private:
  std::vector<Entry> mapped_;
  std::vector<uint32_t> unmapped_;
  std::unordered_map<uint32_t, size_t> by_ca_;
  std::unordered_map<std::string, std::vector<uint32_t>> by_node_;
};

}  // namespace ibw::fabric

// The telemetry field table: names and aliases -> counters, PHY fields, identity columns.
#include <cctype>
#include <initializer_list>
#include <unordered_map>
#include <utility>

#include "ingest/text.h"
#include "ingest/ufm/telemetry.h"
#include "ingest/ufm/telemetry_fields.h"

namespace ibw::ingest {
namespace ufm_telemetry_detail {

const std::unordered_map<std::string, Field>& table() {
  static const std::unordered_map<std::string, Field> t = [] {
    std::unordered_map<std::string, Field> m;
    auto meta = [&](Kind k, std::initializer_list<const char*> names) {
      for (const char* n : names) m[ascii_lower(n)] = Field{k};
    };
    meta(Kind::node_guid, {"node_guid", "nodeGUID"});
    meta(Kind::port_guid, {"port_guid"});
    meta(Kind::port, {"port_num", "Port_Number", "port_number", "portNumber", "port"});
    meta(Kind::time, {"timestamp"});
    meta(Kind::meta, {"source_id", "tag", "Device_ID", "node_description", "lid", "port_label",
                      "Phy_Manager_State", "phy_state", "logical_state", "Cable_SN",
                      "Time_since_last_clear_Min", "Status_Message", "local_reason_opcode",
                      "remote_reason_opcode", "time_to_link_up_msec", "link_partner_description"});
    for (size_t i = 0; i < kCounterCount; ++i) {
      auto c = static_cast<Counter>(i);
      m[ascii_lower(counter_name(c))] = Field{Kind::counter, c};
    }
    const std::pair<const char*, Counter> aliases[] = {
        {"Infiniband_SymbolErrors", Counter::SymbolErrorCounter},
        {"Infiniband_LinkRecovers", Counter::LinkErrorRecoveryCounter},
        {"Infiniband_LinkDowned", Counter::LinkDownedCounter},
        {"Infiniband_RcvErrors", Counter::PortRcvErrors},
        {"Infiniband_RcvRemotePhysErrors", Counter::PortRcvRemotePhysicalErrors},
        {"Infiniband_RcvSwRelayErrors", Counter::PortRcvSwitchRelayErrors},
        {"Infiniband_XmtDiscards", Counter::PortXmitDiscards},
        {"Infiniband_XmtConstraintErrors", Counter::PortXmitConstraintErrors},
        {"Infiniband_RcvConstraintErrors", Counter::PortRcvConstraintErrors},
        {"Infiniband_LinkIntegrityErrors", Counter::LocalLinkIntegrityErrors},
        {"Infiniband_ExcBufOverrunErrors", Counter::ExcessiveBufferOverrunErrors},
        {"Infiniband_VL15Dropped", Counter::VL15Dropped},
        {"Infiniband_XmitWait", Counter::PortXmitWait},
        {"Infiniband_PckOut", Counter::PortXmitPkts},
        {"Infiniband_PckIn", Counter::PortRcvPkts},
    };
    for (const auto& [name, c] : aliases) m[ascii_lower(name)] = Field{Kind::counter, c};
    auto phy = [&](Phy p, std::initializer_list<const char*> names, int lane = 0) {
      for (const char* n : names) m[ascii_lower(n)] = Field{Kind::phy, Counter{}, p, lane};
    };
    phy(Phy::raw_ber, {"Total_Raw_BER", "raw_ber"});
    phy(Phy::effective_ber, {"Effective_BER"});
    phy(Phy::symbol_ber, {"Symbol_BER"});
    phy(Phy::effective_errors, {"Effective_Errors", "phy_effective_errors"});
    phy(Phy::symbol_errors, {"Symbol_Errors", "phy_symbol_errors"});
    for (int l = 0; l < 4; ++l) {
      std::string a = "Raw_Errors_Lane_" + std::to_string(l);
      std::string b = "phy_raw_errors_lane" + std::to_string(l);
      phy(Phy::raw_lane, {a.c_str(), b.c_str()}, l);
    }
    phy(Phy::link_down, {"Link_Down", "Link_Down_IB"});
    phy(Phy::temperature, {"Module_Temperature", "CableInfo.Temperature"});
    phy(Phy::fec, {"Active_FEC", "fec_mode_active"});
    phy(Phy::speed, {"Link_speed_active"});
    phy(Phy::width, {"Link_width_active"});
    phy(Phy::partner_guid, {"link_partner_node_guid"});
    phy(Phy::partner_port, {"link_partner_port_num"});
    return m;
  }();
  return t;
}

Field classify(std::string_view name) {
  std::string n = ascii_lower(name);
  if (size_t u = n.find("_u_"); u != std::string::npos) n.erase(u);  // "..._u_Errors"
  const auto& t = table();
  if (auto it = t.find(n); it != t.end()) return it->second;
  static constexpr std::string_view kExt = "extended";
  if (n.size() > kExt.size() && n.compare(n.size() - kExt.size(), kExt.size(), kExt) == 0) {
    if (auto it = t.find(n.substr(0, n.size() - kExt.size()));
        it != t.end() && it->second.kind == Kind::counter)
      return it->second;
  }
  return Field{};
}

}  // namespace ufm_telemetry_detail

std::optional<Counter> telemetry_counter(std::string_view field) {
  auto f = ufm_telemetry_detail::classify(field);
  if (f.kind != ufm_telemetry_detail::Kind::counter) return std::nullopt;
  return f.counter;
}

}  // namespace ibw::ingest

#include "fabric/speed.h"

#include <array>
#include <cctype>

namespace ibw::fabric {
namespace {

struct SpeedInfo {
  Speed speed;
  std::string_view name;
  double gbps;
};

constexpr std::array<SpeedInfo, 10> kSpeeds{{
    {Speed::unknown, "?", 0.0},
    {Speed::sdr, "SDR", 2.5},
    {Speed::ddr, "DDR", 5.0},
    {Speed::qdr, "QDR", 10.0},
    {Speed::fdr10, "FDR10", 10.3125},
    {Speed::fdr, "FDR", 14.0625},
    {Speed::edr, "EDR", 25.78125},
    {Speed::hdr, "HDR", 53.125},
    {Speed::ndr, "NDR", 106.25},
    {Speed::xdr, "XDR", 212.5},
}};

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

}  // namespace

std::string_view speed_name(Speed s) {
  return kSpeeds[static_cast<size_t>(s)].name;
}

double lane_gbps(Speed s) {
  return kSpeeds[static_cast<size_t>(s)].gbps;
}

std::optional<Speed> parse_speed(std::string_view text) {
  for (const auto& info : kSpeeds) {  // exact case first: what every tool prints
    if (info.speed != Speed::unknown && info.name == text) return info.speed;
  }
  for (const auto& info : kSpeeds) {
    if (info.speed != Speed::unknown && iequals(info.name, text)) return info.speed;
  }
  return std::nullopt;
}

std::string width_name(int lanes) {
  return lanes > 0 ? std::to_string(lanes) + "x" : "?";
}

std::optional<int> parse_width(std::string_view text) {
  if (!text.empty() && (text.back() == 'x' || text.back() == 'X')) text.remove_suffix(1);
  if (text == "1") return 1;
  if (text == "2") return 2;
  if (text == "4") return 4;
  if (text == "8") return 8;
  if (text == "12") return 12;
  return std::nullopt;
}

int width_from_portinfo_bit(uint32_t bit) {
  switch (bit) {
    case 1:
      return 1;
    case 2:
      return 4;
    case 4:
      return 8;
    case 8:
      return 12;
    case 16:
      return 2;
    default:
      return 0;
  }
}

int max_width_in_mask(uint32_t mask) {
  if (mask & 8) return 12;
  if (mask & 4) return 8;
  if (mask & 2) return 4;
  if (mask & 16) return 2;
  if (mask & 1) return 1;
  return 0;
}

Speed speed_from_portinfo(uint32_t speed_active, uint32_t ext_active, bool fdr10_active) {
  switch (ext_active) {
    case 1:
      return Speed::fdr;
    case 2:
      return Speed::edr;
    case 4:
      return Speed::hdr;
    case 8:
      return Speed::ndr;
    case 16:
      return Speed::xdr;
    default:
      break;
  }
  if (fdr10_active) return Speed::fdr10;
  switch (speed_active) {
    case 1:
      return Speed::sdr;
    case 2:
      return Speed::ddr;
    case 4:
      return Speed::qdr;
    default:
      return Speed::unknown;
  }
}

Speed max_speed_in_masks(uint32_t speed_mask, uint32_t ext_mask, bool fdr10) {
  if (ext_mask & 16) return Speed::xdr;
  if (ext_mask & 8) return Speed::ndr;
  if (ext_mask & 4) return Speed::hdr;
  if (ext_mask & 2) return Speed::edr;
  if (ext_mask & 1) return Speed::fdr;
  if (fdr10) return Speed::fdr10;
  if (speed_mask & 4) return Speed::qdr;
  if (speed_mask & 2) return Speed::ddr;
  if (speed_mask & 1) return Speed::sdr;
  return Speed::unknown;
}

std::string rate_name(int lanes, Speed s) {
  return width_name(lanes) + std::string(speed_name(s));
}

}  // namespace ibw::fabric

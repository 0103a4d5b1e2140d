// Link width and speed vocabulary shared by every loader, the plan and the audit.
//
// Widths are kept as lane counts (1, 2, 4, 8, 12) and speeds as an ordered enum so that
// "slower than" is a plain comparison. PortInfo encodings (IBA 14.2.5.6 LinkWidth*,
// LinkSpeed*, LinkSpeedExt*) are converted here and nowhere else.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibw::fabric {

// Ordered from slowest to fastest: comparisons mean "slower/faster".
enum class Speed : uint8_t { unknown = 0, sdr, ddr, qdr, fdr10, fdr, edr, hdr, ndr, xdr };

// "SDR", "HDR", ... ; "?" for unknown.
std::string_view speed_name(Speed s);
// Accepts IB names case-insensitively ("hdr", "NDR", "FDR10").
std::optional<Speed> parse_speed(std::string_view text);
// Per-lane signalling rate in Gb/s (e.g. HDR 53.125), 0 for unknown.
double lane_gbps(Speed s);

// Lane count -> "4x"; 0 -> "?".
std::string width_name(int lanes);
// Accepts "4x", "4X" or "4"; only 1, 2, 4, 8, 12 are valid.
std::optional<int> parse_width(std::string_view text);

// PortInfo.LinkWidth{Active} single-bit encoding -> lanes (0 when not a single known bit).
int width_from_portinfo_bit(uint32_t bit);
// Highest lane count present in a LinkWidth{Enabled,Supported} mask.
int max_width_in_mask(uint32_t mask);
// Active speed from PortInfo LinkSpeedActive, LinkSpeedExtActive and Mellanox FDR10 active.
Speed speed_from_portinfo(uint32_t speed_active, uint32_t ext_active, bool fdr10_active);
// Highest speed in LinkSpeed{Enabled,Supported} + LinkSpeedExt{...} masks (+FDR10 flag).
Speed max_speed_in_masks(uint32_t speed_mask, uint32_t ext_mask, bool fdr10);

// "4xHDR" as ibnetdiscover prints it.
std::string rate_name(int lanes, Speed s);

}  // namespace ibw::fabric

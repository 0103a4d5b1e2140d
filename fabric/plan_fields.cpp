#include "fabric/plan_fields.h"

#include <charconv>

#include "fabric/model.h"
#include "fabric/text_util.h"

namespace ibw::fabric::plan_fields {

bool is_required(std::string_view column) {
  for (auto c : kRequired)
    if (c == column) return true;
  return false;
}

bool is_known(std::string_view column) {
  return index_of(column) >= 0;
}

int index_of(std::string_view column) {
  for (int i = 0; i < kNumRequired; ++i)
    if (kRequired[i] == column) return i;
  for (int i = 0; i < kNumOptional; ++i)
    if (kOptional[i] == column) return kNumRequired + i;
  return -1;
}

std::string known_list() {
  std::string s;
  for (auto c : kRequired) s += (s.empty() ? "" : ", ") + std::string(c);
  for (auto c : kOptional) s += ", " + std::string(c);
  return s;
}

namespace {

void set_node(std::string& out, std::string_view value, std::string_view column, int line,
              DiagnosticSink& sink) {
  if (value.empty()) {
    sink.add(line, std::string(column), "node name is empty");
    return;
  }
  if (value.find('/') != std::string_view::npos) {
    sink.add(
        line, std::string(column),
        "node name \"" + std::string(value) + "\" contains '/'; put the port in its own column");
    return;
  }
  if (text::starts_with(value, "0x") && !parse_guid(value)) {
    sink.add(line, std::string(column), "\"" + std::string(value) + "\" is not a valid GUID");
    return;
  }
  out = std::string(value);
}

void set_port(int& out, std::string_view value, std::string_view column, int line,
              DiagnosticSink& sink) {
  auto v = text::to_int<int>(value);
  if (!v || *v < 1 || *v > 255) {
    sink.add(line, std::string(column),
             "\"" + std::string(value) + "\" is not a port number (1-255)");
    return;
  }
  out = *v;
}

}  // namespace

void set_field(PlannedLink& link, std::string_view column, std::string_view value, int line,
               DiagnosticSink& sink) {
  int index = index_of(column);
  if (index < 0) {
    sink.add(line, std::string(column), "unknown field; known: " + known_list());
    return;
  }
  set_field(link, index, value, line, sink);
}

void set_field(PlannedLink& link, int index, std::string_view value, int line,
               DiagnosticSink& sink) {
  value = text::trim(value);
  std::string_view column = name_of(index);
  auto bad = [&](std::string message) { sink.add(line, std::string(column), std::move(message)); };
  switch (index) {
    case 0:  // cable_id
      if (value.empty()) bad("cable ID is empty");
      link.cable_id = std::string(value);
      break;
    case 1:  // a_node
      set_node(link.a.node, value, column, line, sink);
      break;
    case 2:  // a_port
      set_port(link.a.port, value, column, line, sink);
      break;
    case 3:  // b_node
      set_node(link.b.node, value, column, line, sink);
      break;
    case 4:  // b_port
      set_port(link.b.port, value, column, line, sink);
      break;
    case 5:  // kind
      link.kind = std::string(value);
      break;
    case 6:  // a_location
      link.a.location = std::string(value);
      break;
    case 7:  // b_location
      link.b.location = std::string(value);
      break;
    case 8: {  // length_m
      if (value.empty()) return;
      double v = 0;
      auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || ptr != value.data() + value.size() || !(v > 0) || v > 10000)
        return bad("\"" + std::string(value) + "\" is not a length in metres");
      link.length_m = v;
      break;
    }
    case 9: {  // speed
      if (value.empty()) return;
      auto s = parse_speed(value);
      if (!s)
        return bad("\"" + std::string(value) +
                   "\" is not an IB speed (SDR DDR QDR FDR10 FDR EDR HDR NDR XDR)");
      link.speed = *s;
      break;
    }
    case 10: {  // width
      if (value.empty()) return;
      auto w = parse_width(value);
      if (!w) return bad("\"" + std::string(value) + "\" is not a link width (1x 2x 4x 8x 12x)");
      link.width = *w;
      break;
    }
  }
}

}  // namespace ibw::fabric::plan_fields

// parse_lft_dump: one reader for OpenSM's opensm-lfts.dump and ibroute / dump_fts output.
//
//   Unicast lids [0-22] of switch Lid 2 guid 0xb83fd20300000001 ('leaf001'):       OpenSM
//   0x0001 001 # Channel Adapter portguid 0x0c42a10300000003: 'node0001 mlx5_0'
//   22 lids dumped
//
//   Unicast lids [0x0-0x16] of switch DR path slid 0; dlid 0; 0,1 guid 0x... (leaf001):
//     Lid  Out   Destination                                                          ibroute
//          Port     Info
//   0x0001 001 : (Channel Adapter portguid 0x0c42a10300000003: 'node0001 mlx5_0')
//   0x0007 255 : (illegal port)                                                    (with -a)
//   0x0008 000                                                                     (with -n)
//   22 valid lids dumped
#include <algorithm>
#include <cctype>

#include "fabric/diagnostics.h"
#include "fabric/routing.h"
#include "fabric/text_util.h"

namespace ibw::fabric {
namespace routing_detail {

// "0x16" (hex) or "22" (decimal), as the two formats write the header's LID range.
std::optional<uint32_t> header_number(std::string_view s) {
  if (text::starts_with(s, "0x") || text::starts_with(s, "0X"))
    return text::to_int<uint32_t>(s.substr(2), 16);
  return text::to_int<uint32_t>(s, 10);
}

// Splits off the leading run of non-space characters.
std::string_view take_word(std::string_view& s) {
  size_t end = 0;
  while (end < s.size() && !text::is_space(s[end])) ++end;
  std::string_view word = s.substr(0, end);
  s = text::trim(s.substr(end));
  return word;
}

// "N lids dumped" / "N valid lids dumped".
bool is_footer(std::string_view line) {
  std::string_view rest = line;
  std::string_view count = take_word(rest);
  return text::to_int<uint32_t>(count).has_value() &&
         (rest == "lids dumped" || rest == "valid lids dumped");
}

// ibroute's two column-title lines.
bool is_column_title(std::string_view line) {
  return (text::starts_with(line, "Lid") && line.find("Out") != std::string_view::npos) ||
         (text::starts_with(line, "Port") && line.find("Info") != std::string_view::npos);
}

class LftDumpParser {
 public:
  LftDumpParser(std::string_view data, const std::string& file) : data_(data), sink_(file) {}

  RoutingTables run() {
    text::for_each_line(data_, [&](std::string_view line, int n) { parse_line(line, n); });
    finish_switch();
    sink_.throw_if_any();
    return std::move(tables_);
  }

 private:
  struct SwitchState {
    Lft* lft = nullptr;  // null: no current switch (before the first header, after a footer)
    uint32_t first_lid = 0;
    int header_line = 0;
    std::vector<int> seen;  // line of each LID's row, 0 = none (indexed by LID - first_lid)
  };

  void parse_line(std::string_view raw, int n) {
    std::string_view line = text::trim(raw);
    if (line.empty() || line.front() == '#') return;
    if (text::starts_with(line, "Unicast lids")) return parse_header(line, n);
    if (text::starts_with(line, "Multicast")) {
      finish_switch();
      in_multicast_ = true;
      sink_.add(n, "header", "multicast forwarding tables are not supported (unicast LFTs only)");
      return;
    }
    if (is_column_title(line)) return;
    if (is_footer(line)) {
      finish_switch();
      return;
    }
    if (text::starts_with(line, "0x")) return parse_row(line, n);
    sink_.add(n, "line", "unrecognised line \"" + std::string(line.substr(0, 60)) + "\"");
  }

  void finish_switch() {
    if (sw_.lft && sw_.lft->switch_lid == 0) {
      // dump_fts by directed route does not name the switch's LID: its own LID is the one
      // it forwards to port 0.
      const auto& ports = sw_.lft->out_port;
      for (size_t lid = 1; lid < ports.size(); ++lid)
        if (ports[lid] == 0) {
          sw_.lft->switch_lid = static_cast<uint16_t>(lid);
          break;
        }
    }
    sw_ = SwitchState{};
  }

  // Unicast lids [A-B] of switch <Lid N | DR path ...> guid 0x<hex> (<desc>):
  void parse_header(std::string_view line, int n) {
    finish_switch();
    in_multicast_ = false;
    size_t open = line.find('['), dash = line.find('-', open), close = line.find(']', open);
    std::optional<uint32_t> first, last;
    if (open != std::string_view::npos && dash != std::string_view::npos &&
        close != std::string_view::npos && dash < close) {
      first = header_number(line.substr(open + 1, dash - open - 1));
      last = header_number(line.substr(dash + 1, close - dash - 1));
    }
    if (!first || !last || *first > *last || *last > 0xffff) {
      sink_.add(n, "header", "expected a LID range like [0-22] or [0x0-0x16] in the header");
      return;
    }
    size_t at = line.find(" guid 0x");
    std::optional<uint64_t> guid;
    if (at != std::string_view::npos) {
      std::string_view rest = line.substr(at + 8);
      size_t end = 0;
      while (end < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[end]))) ++end;
      if (end > 0 && end <= 16) guid = text::to_int<uint64_t>(rest.substr(0, end), 16);
    }
    if (!guid || *guid == 0) {
      sink_.add(n, "guid", "the header needs the switch's \"guid 0x<16 hex digits>\"");
      return;
    }
    uint16_t switch_lid = 0;
    size_t of = line.find("of switch Lid ");
    if (of != std::string_view::npos && of < at) {
      std::string_view rest = line.substr(of + 14, at - of - 14);
      auto lid = text::to_int<uint16_t>(text::trim(rest));
      if (!lid) {
        sink_.add(n, "header", "\"Lid " + std::string(rest) + "\" is not a LID");
        return;
      }
      switch_lid = *lid;
    }
    auto [it, inserted] = tables_.by_switch.try_emplace(*guid);
    if (!inserted) {
      sink_.add(n, "guid",
                "switch " + format_guid(*guid) + " is already listed at line " +
                    std::to_string(header_lines_[*guid]));
      return;
    }
    header_lines_[*guid] = n;
    Lft& lft = it->second;
    lft.switch_guid = *guid;
    lft.switch_lid = switch_lid;
    lft.out_port.assign(*last + 1, kNoLftEntry);
    sw_.lft = &lft;
    sw_.first_lid = *first;
    sw_.header_line = n;
    sw_.seen.assign(*last - *first + 1, 0);
  }

  // 0x<lid> <port> [# ... | : (...)]
  void parse_row(std::string_view line, int n) {
    if (in_multicast_) return;  // already reported at the multicast header
    std::string_view rest = line;
    std::string_view lid_text = take_word(rest);
    std::string_view port_text = take_word(rest);
    auto lid = text::to_int<uint32_t>(lid_text.substr(2), 16);
    if (!lid || *lid > 0xffff) {
      sink_.add(n, "lid", "\"" + std::string(lid_text) + "\" is not a hex LID");
      return;
    }
    auto port = text::to_int<uint32_t>(port_text);
    if (!port || *port > 255) {
      sink_.add(n, "port", "\"" + std::string(port_text) + "\" is not a port number 0-255");
      return;
    }
    if (!rest.empty() && rest.front() != '#' && rest.front() != ':') {
      sink_.add(n, "line", "unexpected text after the port: \"" + std::string(rest) + "\"");
      return;
    }
    if (!sw_.lft) {
      sink_.add(n, "lid", "LFT row outside a switch (no \"Unicast lids\" header before it)");
      return;
    }
    if (*lid < sw_.first_lid || *lid >= sw_.lft->out_port.size()) {
      sink_.add(n, "lid",
                std::string(lid_text) + " is outside the LID range of the header at line " +
                    std::to_string(sw_.header_line));
      return;
    }
    int& seen = sw_.seen[*lid - sw_.first_lid];
    if (seen) {
      sink_.add(n, "lid",
                std::string(lid_text) + " is already listed at line " + std::to_string(seen));
      return;
    }
    seen = n;
    sw_.lft->out_port[*lid] = static_cast<uint8_t>(*port);
  }

  std::string_view data_;
  DiagnosticSink sink_;
  RoutingTables tables_;
  std::unordered_map<uint64_t, int> header_lines_;
  SwitchState sw_;
  bool in_multicast_ = false;
};

}  // namespace routing_detail

RoutingTables parse_lft_dump(std::string_view text, const std::string& file) {
  return routing_detail::LftDumpParser(text, file).run();
}

RoutingTables load_lft_dump(const std::string& path) {
  return parse_lft_dump(read_file(path), path);
}

bool same_routes(const Lft& a, const Lft& b) {
  size_t n = std::max(a.out_port.size(), b.out_port.size());
  for (size_t lid = 0; lid < n; ++lid)
    if (a.port_for(static_cast<uint16_t>(lid)) != b.port_for(static_cast<uint16_t>(lid)))
      return false;
  return true;
}

}  // namespace ibw::fabric

// parse_sl2vl_dump: OpenSM's opensm-sl2vl.dump (format in fabric/sl2vl.h), and SwitchSl2Vl.
#include "fabric/sl2vl.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "fabric/diagnostics.h"
#include "fabric/model.h"
#include "fabric/text_util.h"

namespace ibw::fabric {

void SwitchSl2Vl::grow(int top) {
  if (top <= max_port && !packed.empty()) return;
  int old = packed.empty() ? -1 : max_port;
  std::vector<uint64_t> p(static_cast<size_t>(top + 1) * static_cast<size_t>(top + 1), 0);
  std::vector<uint8_t> k(p.size(), 0);
  for (int i = 0; i <= old; ++i)
    for (int o = 0; o <= old; ++o) {
      size_t from = static_cast<size_t>(i) * static_cast<size_t>(old + 1) + static_cast<size_t>(o);
      size_t to = static_cast<size_t>(i) * static_cast<size_t>(top + 1) + static_cast<size_t>(o);
      p[to] = packed[from];
      k[to] = known[from];
    }
  max_port = top;
  packed = std::move(p);
  known = std::move(k);
}

void SwitchSl2Vl::set(int in, int out, uint64_t vls) {
  grow(std::max({in, out, max_port}));
  packed[index(in, out)] = vls;
  known[index(in, out)] = 1;
}

namespace sl2vl_detail {

class Sl2VlDumpParser {
 public:
  Sl2VlDumpParser(std::string_view data, const std::string& file) : data_(data), sink_(file) {}

  Sl2VlTables run() {
    text::for_each_line(data_, [&](std::string_view line, int n) { parse_line(line, n); });
    sink_.throw_if_any();
    tables_.source = "opensm-sl2vl.dump";
    return std::move(tables_);
  }

 private:
  enum class Kind { none, sw, ca };

  void parse_line(std::string_view raw, int n) {
    std::string_view line = text::trim(raw);
    if (line.empty() || line.front() == '#') return;
    for (std::string_view type : {"Switch ", "Channel Adapter ", "Router "})
      if (text::starts_with(line, type)) return parse_header(line, type, n);
    if (std::isdigit(static_cast<unsigned char>(line.front()))) return parse_row(line, n);
    sink_.add(n, "line", "unrecognised line \"" + std::string(line.substr(0, 60)) + "\"");
  }

  // <type> 0x<guid>, base LID <n>, "<description>"
  void parse_header(std::string_view line, std::string_view type, int n) {
    kind_ = Kind::none;
    std::string_view rest = line.substr(type.size());
    size_t comma = rest.find(',');
    std::optional<uint64_t> guid;
    if (comma != std::string_view::npos) guid = parse_guid(text::trim(rest.substr(0, comma)));
    if (!guid || *guid == 0) {
      sink_.add(n, "guid", "expected \"" + std::string(type) + "0x<port GUID>, base LID N\"");
      return;
    }
    if (!seen_.emplace(*guid, n).second) {
      sink_.add(n, "guid",
                format_guid(*guid) + " is already listed at line " + std::to_string(seen_[*guid]));
      return;
    }
    guid_ = *guid;
    kind_ = type == "Switch " ? Kind::sw : Kind::ca;
    if (kind_ == Kind::sw) tables_.by_switch[guid_];
  }

  // <in> <out> : <16 VLs>
  void parse_row(std::string_view line, int n) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      sink_.add(n, "line", "expected \"<in port> <out port> : <16 VLs>\"");
      return;
    }
    std::vector<std::string_view> ports = words(line.substr(0, colon));
    std::vector<std::string_view> vls = words(line.substr(colon + 1));
    if (ports.size() != 2) {
      sink_.add(n, "ports", "expected two port numbers (in, out) before ':'");
      return;
    }
    auto in = text::to_int<int>(ports[0]), out = text::to_int<int>(ports[1]);
    if (!in || *in < 0 || *in > 254) return port_error(n, "in_port", ports[0]);
    if (!out || *out < 0 || *out > 254) return port_error(n, "out_port", ports[1]);
    if (vls.size() != 16) {
      sink_.add(n, "vls", "expected 16 VLs (SL 0-15), found " + std::to_string(vls.size()));
      return;
    }
    uint64_t packed = 0;
    for (size_t sl = 0; sl < 16; ++sl) {
      auto vl = text::to_int<uint32_t>(vls[sl]);
      if (!vl || *vl > 15) {
        sink_.add(
            n, "vl",
            "SL " + std::to_string(sl) + ": \"" + std::string(vls[sl]) + "\" is not a VL 0-15");
        return;
      }
      packed |= uint64_t{*vl} << (4 * sl);
    }
    if (kind_ == Kind::none) {
      sink_.add(n, "line", "table row outside a port block (no \"Switch 0x...\" header before it)");
      return;
    }
    if (kind_ == Kind::ca) {
      tables_.by_ca_port[guid_] = packed;
      return;
    }
    SwitchSl2Vl& sw = tables_.by_switch[guid_];
    if (sw.has(*in, *out)) {
      sink_.add(n, "ports",
                "in " + std::to_string(*in) + " out " + std::to_string(*out) + " is listed twice");
      return;
    }
    sw.set(*in, *out, packed);
  }

  void port_error(int n, const char* field, std::string_view text) {
    sink_.add(n, field, "\"" + std::string(text) + "\" is not a port number 0-254");
  }

  static std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> out;
    s = text::trim(s);
    while (!s.empty()) {
      size_t end = 0;
      while (end < s.size() && !text::is_space(s[end])) ++end;
      out.push_back(s.substr(0, end));
      s = text::trim(s.substr(end));
    }
    return out;
  }

  std::string_view data_;
  DiagnosticSink sink_;
  Sl2VlTables tables_;
  std::unordered_map<uint64_t, int> seen_;  // GUID -> its header line
  Kind kind_ = Kind::none;
  uint64_t guid_ = 0;
};

}  // namespace sl2vl_detail

Sl2VlTables parse_sl2vl_dump(std::string_view text, const std::string& file) {
  return sl2vl_detail::Sl2VlDumpParser(text, file).run();
}

Sl2VlTables load_sl2vl_dump(const std::string& path) {
  return parse_sl2vl_dump(read_file(path), path);
}

}  // namespace ibw::fabric

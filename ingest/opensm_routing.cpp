// parse_routing_engine: a small state machine over OpenSM's log lines. A pass collects the
// engines that failed until a "tables configured" line names the one in use.
#include "ingest/opensm_routing.h"

#include <fstream>
#include <vector>

namespace ibw::ingest {
namespace opensm_routing_detail {

constexpr std::string_view kConfigured = " tables configured on all switches";
constexpr std::string_view kRoute = "ucast_mgr_route: ";

// The word before `end` in line (after the last ": " or space before it).
std::string word_before(std::string_view line, size_t end) {
  size_t begin = line.rfind(' ', end == 0 ? 0 : end - 1);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  return std::string(line.substr(begin, end - begin));
}

// The message after OpenSM's "... 0x02 -> " prefix.
std::string_view message(std::string_view line) {
  size_t arrow = line.find(" -> ");
  return arrow == std::string_view::npos ? line : line.substr(arrow + 4);
}

}  // namespace opensm_routing_detail

fabric::RoutingEngineInfo parse_routing_engine(std::string_view log) {
  using namespace opensm_routing_detail;
  fabric::RoutingEngineInfo out;
  std::vector<std::string> failed;
  std::string reason, last_disabling;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t nl = log.find('\n', pos);
    std::string_view line = log.substr(pos, nl == std::string_view::npos ? log.npos : nl - pos);
    pos = nl == std::string_view::npos ? log.size() : nl + 1;
    if (size_t at = line.find(kConfigured); at != std::string_view::npos) {
      out.in_use = word_before(line, at);
      out.failed = std::move(failed);
      out.reason = out.failed.empty() ? "" : reason;
      failed.clear(), reason.clear(), last_disabling.clear();
    } else if (size_t r = line.find(kRoute);
               r != std::string_view::npos &&
               (line.find(": cannot build lid matrices") != std::string_view::npos ||
                line.find(": cannot build fwd tables") != std::string_view::npos)) {
      std::string_view rest = line.substr(r + kRoute.size());
      failed.emplace_back(rest.substr(0, rest.find(':')));
      if (reason.empty())
        reason = last_disabling.empty() ? std::string(message(line)) : last_disabling;
    } else if (line.find("disabling ") != std::string_view::npos ||
               line.find("not a fat-tree") != std::string_view::npos) {
      last_disabling = std::string(message(line));
    }
  }
  return out;
}

fabric::RoutingEngineInfo read_routing_engine(const std::string& path, size_t tail_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  std::streamoff size = in.tellg();
  std::streamoff from = size > static_cast<std::streamoff>(tail_bytes)
                            ? size - static_cast<std::streamoff>(tail_bytes)
                            : 0;
  in.seekg(from);
  std::string text(static_cast<size_t>(size - from), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (from > 0) {  // start at the first whole line
    size_t nl = text.find('\n');
    text.erase(0, nl == std::string::npos ? text.size() : nl + 1);
  }
  return parse_routing_engine(text);
}

}  // namespace ibw::ingest

// UfmLabModel: counters, faults and renderers of the UFM load lab; see ufm_lab_model.h.
#include "tests/lab/ufm_lab_model.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace ibw::lab {
namespace {

// Telemetry column names, in kLabCounters order (ufm-api.md §5; the first 17 as the Python
// emulator serves them).
constexpr std::array<const char*, kLabCounters> kNames = {"Infiniband_SymbolErrors",
                                                          "Infiniband_LinkRecovers",
                                                          "Infiniband_LinkDowned",
                                                          "Infiniband_RcvErrors",
                                                          "Infiniband_RcvRemotePhysErrors",
                                                          "Infiniband_RcvSwRelayErrors",
                                                          "Infiniband_XmtDiscards",
                                                          "Infiniband_XmtConstraintErrors",
                                                          "Infiniband_RcvConstraintErrors",
                                                          "Infiniband_LinkIntegrityErrors",
                                                          "Infiniband_ExcBufOverrunErrors",
                                                          "Infiniband_VL15Dropped",
                                                          "Infiniband_XmitWait",
                                                          "Infiniband_PckOut",
                                                          "Infiniband_PckIn",
                                                          "Infiniband_MBOut",
                                                          "Infiniband_MBIn",
                                                          "PortXmitDataExtended",
                                                          "PortRcvDataExtended",
                                                          "Infiniband_CBW",
                                                          "Infiniband_Normalized_CBW"};
enum : size_t {
  kSymbol = 0,
  kRecovers = 1,
  kDowned = 2,
  kRcvErr = 3,
  kXmitWait = 12,
  kPckOut = 13,
  kPckIn = 14,
  kMbOut = 15,
  kMbIn = 16,
  kDataOut = 17,
  kDataIn = 18,
  kCbw = 19,
  kNormCbw = 20
};

constexpr size_t kChunk = 1 << 20;

// Appends to a buffer and hands it to the sink when it passes kChunk.
class Writer {
 public:
  explicit Writer(const LabSink& sink) : sink_(sink) { buf_.reserve(kChunk + 4096); }
  ~Writer() { flush(); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  Writer& operator<<(std::string_view s) {
    buf_ += s;
    return *this;
  }
  Writer& operator<<(char c) {
    buf_ += c;
    return *this;
  }
  Writer& num(uint64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, r.ptr);
    return *this;
  }
  Writer& str(std::string_view s) {  // a JSON string
    buf_ += '"';
    for (char c : s) {
      if (c == '"' || c == '\\') buf_ += '\\';
      buf_ += c;
    }
    buf_ += '"';
    return *this;
  }
  void maybe_flush() {
    if (buf_.size() >= kChunk) flush();
  }
  void flush() {
    if (!buf_.empty()) sink_(buf_);
    buf_.clear();
  }

 private:
  const LabSink& sink_;
  std::string buf_;
};

std::string hex(uint64_t v, const char* pattern) {
  char buf[40];
  std::snprintf(buf, sizeof buf, pattern, static_cast<unsigned long long>(v));
  return buf;
}

// Server-local time of UFM (the lab runs at UTC): "YYYY-MM-DD HH:MM:SS".
std::string stamp(int64_t us) {
  time_t t = static_cast<time_t>(us / 1'000'000);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

uint64_t mix(uint64_t x) {  // splitmix64: a per-port base rate from its index
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

UfmLabModel::UfmLabModel(const Lab& lab, const UfmLabOptions& o, int64_t now_us)
    : o_(o), last_us_(now_us), rng_(o.seed) {
  nodes_.resize(lab.nodes.size());
  int lid = 1;
  for (int pass = 0; pass < 2; ++pass)  // lids as the ibnetdiscover writer gives them
    for (size_t n = 0; n < lab.nodes.size(); ++n)
      if (lab.nodes[n].is_switch == (pass == 0)) nodes_[n].lid = lid++;
  for (size_t n = 0; n < lab.nodes.size(); ++n) {
    Node& d = nodes_[n];
    d.name = lab.description(static_cast<int>(n));
    d.hex = hex(lab.nodes[n].guid, "0x%016llx");
    d.bare = hex(lab.nodes[n].guid, "%016llx");
    d.is_switch = lab.nodes[n].is_switch;
  }
  std::vector<std::pair<End, End>> ends;  // (this end, peer)
  ends.reserve(lab.wires.size() * 2);
  for (const auto& w : lab.wires) {
    ends.emplace_back(w.a, w.b);
    ends.emplace_back(w.b, w.a);
  }
  std::sort(ends.begin(), ends.end(), [](const auto& x, const auto& y) {
    return std::make_pair(x.first.node, x.first.port) < std::make_pair(y.first.node, y.first.port);
  });
  ports_.resize(ends.size());
  for (size_t i = 0; i < ends.size(); ++i) {
    ports_[i].node = static_cast<uint32_t>(ends[i].first.node);
    ports_[i].number = static_cast<uint16_t>(ends[i].first.port);
  }
  auto index_of = [&](const End& e) {
    auto it = std::lower_bound(ends.begin(), ends.end(), e, [](const auto& x, const End& k) {
      return std::make_pair(x.first.node, x.first.port) < std::make_pair(k.node, k.port);
    });
    return static_cast<uint32_t>(it - ends.begin());
  };
  for (size_t i = 0; i < ends.size(); ++i) ports_[i].peer = index_of(ends[i].second);
  for (const auto& w : lab.wires) link_a_.push_back(index_of(w.a));
  for (size_t i = 0; i < ports_.size(); ++i) {  // a history, so counters do not start at 0
    uint64_t h = mix(i);
    ports_[i].c[kPckOut] = h % 1'000'000'000;
    ports_[i].c[kPckIn] = (h >> 20) % 1'000'000'000;
  }
}

size_t UfmLabModel::up_ports() const {
  return static_cast<size_t>(
      std::count_if(ports_.begin(), ports_.end(), [](const Port& p) { return p.up; }));
}

std::string UfmLabModel::port_name(const Port& p) const {
  return nodes_[p.node].bare + "_" + std::to_string(p.number);
}

std::string UfmLabModel::end_text(const Port& p) const {
  const Node& n = nodes_[p.node];
  return "(" + std::string(n.is_switch ? "Switch" : "Computer") + ":" + n.name + ":" +
         std::to_string(p.number) + ")" + n.bare + ":" + std::to_string(p.number);
}

void UfmLabModel::add_event(int type, const Port& p, int64_t at_us) {
  const Port& peer = ports_[p.peer];
  const Node& n = nodes_[p.node];
  bool down = type == 329;
  std::string text;
  LabSink sink = [&](std::string_view s) { text += s; };
  {
    Writer w(sink);
    w << "{\"id\":";
    w.num(next_event_id_++);
    w << ",\"name\":";
    w.str(down ? "Link went down" : "Link is up");
    w << ",\"type\":\"Link\",\"event_type\":\"" << (down ? "329" : "328")
      << "\",\"severity\":" << (down ? "\"Warning\"" : "\"Info\"") << ",\"timestamp\":\""
      << stamp(at_us) << "\",\"counter\":\"N/A\",\"category\":\"Fabric Topology\""
      << ",\"object_name\":\"" << port_name(p) << "\",\"object_path\":";
    w.str("default(1) / " + std::string(n.is_switch ? "Switch" : "Computer") + ": " +
          n.name.substr(0, n.name.find(' ')) + " / " + std::to_string(p.number));
    w << ",\"write_to_syslog\":false,\"description\":";
    char sn[32];
    std::snprintf(sn, sizeof sn, "MT%04d%06llu", p.number + peer.number,
                  static_cast<unsigned long long>((p.node ^ peer.node) % 1000000));
    w.str(std::string(down ? "Link went down: " : "Link is up: ") + end_text(p) + " - " +
          end_text(peer) + ", cable S/N: " + sn);
    w << '}';
  }
  events_.push_back(std::move(text));
  while (events_.size() > o_.events_keep) events_.pop_front();
  ++stats_.events;
}

void UfmLabModel::flap(int64_t at_us) {
  if (link_a_.empty()) return;
  uint32_t a = link_a_[rng_() % link_a_.size()];
  Port& p = ports_[a];
  if (!p.up) return;
  Port& q = ports_[p.peer];
  for (Port* x : {&p, &q}) {
    x->up = false;
    x->down_until_us = at_us + static_cast<int64_t>(o_.flap_down_s * 1e6);
    ++x->c[kDowned];
    ++x->c[kRecovers];
  }
  add_event(329, p, at_us);
  ++stats_.flaps;
}

void UfmLabModel::advance(int64_t now_us) {
  if (now_us <= last_us_) return;
  double dt = static_cast<double>(now_us - last_us_) / 1e6;
  ++stats_.advances;
  // Faults first, spread over the elapsed time (Poisson counts).
  auto draws = [&](double per_min) {
    if (per_min <= 0) return 0;
    std::poisson_distribution<int> d(per_min * dt / 60.0);
    return d(rng_);
  };
  std::uniform_int_distribution<int64_t> when(last_us_, now_us);
  for (int i = draws(o_.flap_per_min); i > 0; --i) flap(when(rng_));
  for (int i = draws(o_.burst_per_min); i > 0; --i) {
    Port& p = ports_[rng_() % ports_.size()];
    p.burst_until_us = now_us + static_cast<int64_t>(o_.burst_s * 1e6);
    ++stats_.bursts;
  }
  uint64_t bg = static_cast<uint64_t>(o_.background_share * 1e6);
  for (size_t i = 0; i < ports_.size(); ++i) {
    Port& p = ports_[i];
    if (!p.up) {
      if (now_us < p.down_until_us) continue;
      p.up = ports_[p.peer].up = true;  // one event per link, from the switch end
      add_event(328, nodes_[p.node].is_switch ? p : ports_[p.peer], p.down_until_us);
    }
    uint64_t r = rng_();
    uint64_t base = mix(i) % 900'000 + 100'000;  // packets/s
    auto pk = static_cast<uint64_t>(dt * static_cast<double>(base + r % 50'000));
    p.c[kPckOut] += pk;
    p.c[kPckIn] += pk - pk / 16;
    p.c[kDataOut] += pk * 1024;  // 4-octet words of 4 KiB packets
    p.c[kDataIn] += (pk - pk / 16) * 1024;
    p.c[kMbOut] += pk * 4096 / 1'000'000;
    p.c[kMbIn] += (pk - pk / 16) * 4096 / 1'000'000;
    p.c[kXmitWait] += (r >> 20) % 5000;
    p.c[kCbw] = (r >> 32) % 200'000;
    p.c[kNormCbw] = p.c[kCbw] * 100 / 200'000;
    if ((r >> 40) % 1'000'000 < bg) p.c[kSymbol] += 1 + (r >> 60) % 3;
    if (p.burst_until_us > now_us) {
      p.c[kSymbol] += static_cast<uint64_t>(dt * 5000);
      p.c[kRcvErr] += static_cast<uint64_t>(dt * 50);
      p.c[kRecovers] += (r >> 8) % 2;
    }
  }
  last_us_ = now_us;
}

void UfmLabModel::telemetry_csv(int64_t now_us, const LabSink& out) const {
  Writer w(out);
  w << "timestamp,source_id,tag,node_guid,port_guid,port_num";
  for (const char* n : kNames) w << ',' << n;
  w << '\n';
  std::string ts = std::to_string(now_us);
  for (const Port& p : ports_) {
    if (!p.up) continue;
    const std::string& g = nodes_[p.node].hex;
    w << ts << ',' << g << ",," << g << ',' << g << ',';
    w.num(p.number);
    for (uint64_t v : p.c) w << ',', w.num(v);
    w << '\n';
    w.maybe_flush();
  }
}

void UfmLabModel::telemetry_prometheus(int64_t now_us, const LabSink& out) const {
  Writer w(out);
  std::string ts = std::to_string(now_us / 1000);
  for (size_t c = 0; c < kLabCounters; ++c) {
    w << "# HELP " << kNames[c] << ' ' << kNames[c] << "\n# TYPE " << kNames[c] << " counter\n";
    for (const Port& p : ports_) {
      if (!p.up) continue;
      const Node& n = nodes_[p.node];
      w << kNames[c] << "{node_guid=\"" << n.hex << "\",port_guid=\"" << n.hex << "\",port_num=\"";
      w.num(p.number);
      w << "\",node_description=";
      w.str(n.name);
      w << "} ";
      w.num(p.c[c]);
      w << ' ' << ts << '\n';
      w.maybe_flush();
    }
  }
}

void UfmLabModel::events_json(const LabSink& out) const {
  Writer w(out);
  w << '[';
  bool first = true;
  for (const auto& e : events_) {
    if (!first) w << ',';
    first = false;
    w << e;
    w.maybe_flush();
  }
  w << "]\n";
}

void UfmLabModel::render_port(const Port& p, std::string& out) const {
  LabSink sink = [&](std::string_view s) { out += s; };
  Writer w(sink);
  const Node& n = nodes_[p.node];
  const Port& q = ports_[p.peer];
  const Node& pn = nodes_[q.node];
  std::string num = std::to_string(p.number);
  std::string sys = n.is_switch ? n.name : n.name.substr(0, n.name.find(' '));
  w << "{\"description\":\"" << (n.is_switch ? "Switch IB Port" : "Computer IB Port")
    << "\",\"number\":" << num << ",\"external_number\":" << num << ",\"physical_state\":\""
    << (p.up ? "Link Up" : "Polling") << "\",\"path\":";
  w.str("default(1) / " + std::string(n.is_switch ? "Switch" : "Computer") + ": " + sys + " / " +
        num);
  w << ",\"tier\":" << (n.is_switch ? "2" : "1") << ",\"high_ber_severity\":\"N/A\",\"lid\":";
  w.num(static_cast<uint64_t>(n.lid));
  w << ",\"mirror\":\"disable\",\"logical_state\":\"" << (p.up ? "Active" : "Down")
    << "\",\"capabilities\":[\"reset\",\"healthy_operations\",\"disable\",\"get_cables_info\"]"
    << ",\"mtu\":4096,\"peer_port_dname\":\"" << (p.up ? std::to_string(q.number) : "N/A")
    << "\",\"severity\":\"Info\",\"active_speed\":" << (p.up ? "\"HDR\"" : "null")
    << ",\"enabled_speed\":[\"HDR\"],\"supported_speed\":[\"HDR\"],\"active_width\":"
    << (p.up ? "\"4x\"" : "null")
    << ",\"enabled_width\":[\"4x\"],\"supported_width\":[\"4x\"],\"dname\":\"" << num
    << "\",\"guid\":\"" << n.bare << "\",\"name\":\"" << n.bare << '_' << num
    << "\",\"systemID\":\"" << n.bare << "\",\"system_name\":";
  w.str(sys);
  w << ",\"node_description\":";
  w.str(n.is_switch ? n.name + ":" + num : n.name);
  if (p.up) {
    w << ",\"peer\":\"" << pn.bare << '_' << std::to_string(q.number) << "\",\"peer_guid\":\""
      << pn.bare << "\",\"peer_node_name\":";
    w.str(pn.is_switch ? pn.name : pn.name.substr(0, pn.name.find(' ')));
    w << ",\"peer_node_description\":";
    w.str(pn.name);
  } else {
    w << ",\"peer\":\"N/A\",\"peer_node_name\":\"N/A\",\"peer_node_description\":\"N/A\"";
  }
  w << '}';
}

void UfmLabModel::ports_json(const LabSink& out) const {
  Writer w(out);
  w << '[';
  std::string one;
  for (size_t i = 0; i < ports_.size(); ++i) {
    one.clear();
    render_port(ports_[i], one);
    if (i) w << ',';
    w << one;
    w.maybe_flush();
  }
  w << "]\n";
}

void UfmLabModel::links_json(const LabSink& out) const {
  Writer w(out);
  w << '[';
  bool first = true;
  for (uint32_t a : link_a_) {
    const Port& p = ports_[a];
    if (!p.up) continue;  // UFM leaves down links out (emulator's guess)
    const Port& q = ports_[p.peer];
    if (!first) w << ',';
    first = false;
    w << "{\"name\":\"" << port_name(p) << ':' << port_name(q)
      << "\",\"width\":\"4x\",\"severity\":\"Info\",\"capabilities\":[\"collect_system_dump\"]";
    for (const auto& [prefix, x] : {std::pair{"source", &p}, std::pair{"destination", &q}}) {
      const Node& n = nodes_[x->node];
      std::string num = std::to_string(x->number);
      w << ",\"" << prefix << "_guid\":\"" << n.bare << "\",\"" << prefix << "_port\":\"" << num
        << "\",\"" << prefix << "_port_dname\":\"" << num << "\",\"" << prefix << "_port_name\":\""
        << n.bare << '_' << num << "\",\"" << prefix << "_port_node_description\":";
      w.str(n.name);
    }
    w << '}';
    w.maybe_flush();
  }
  w << "]\n";
}

void UfmLabModel::systems_json(const LabSink& out) const {
  Writer w(out);
  w << '[';
  std::vector<std::vector<uint16_t>> numbers(nodes_.size());
  for (const Port& p : ports_) numbers[p.node].push_back(p.number);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    std::string sys = n.is_switch ? n.name : n.name.substr(0, n.name.find(' '));
    if (i) w << ',';
    w << "{\"system_guid\":\"" << n.bare << "\",\"guid\":\"" << n.bare << "\",\"system_name\":";
    w.str(sys);
    w << ",\"name\":";
    w.str(sys);
    w << ",\"type\":\"" << (n.is_switch ? "switch" : "host") << "\",\"model\":\""
      << (n.is_switch ? "QM8700" : "ConnectX-6")
      << "\",\"vendor\":\"Mellanox\",\"ip\":\"0.0.0.0\",\"severity\":\"Info\","
         "\"state\":\"active\",\"technology\":\"HDR\",\"capabilities\":"
      << (n.is_switch ? "[\"reboot\",\"sw_upgrade\"]" : "[]") << ",\"ports\":[";
    for (size_t k = 0; k < numbers[i].size(); ++k)
      w << (k ? ",\"" : "\"") << n.bare << '_' << std::to_string(numbers[i][k]) << '"';
    w << "]}";
    w.maybe_flush();
  }
  w << "]\n";
}

}  // namespace ibw::lab

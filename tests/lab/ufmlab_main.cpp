// ibw-ufmlab: a UFM load lab (tests/lab/ufm_lab_model.h) over HTTP, Boost.Beast, one thread
// per connection, every answer streamed in chunks (a 393,216-port fabric answers 90 MB of
// telemetry CSV, 1.3 GB of Prometheus text, 330 MB of /resources/ports).
//
//   ibw-ufmlab --out DIR [--tiers 3 --k 64 | --leaves N --spines N --hosts-per-leaf N]
//     [--port 0] [--telemetry-port N] [--port-file PF] [--duration S]
//     [--burst-rate N/min] [--burst-seconds S] [--flap-rate N/min] [--flap-down S]
//     [--background SHARE] [--events-keep N] [--seed N]
//
// DIR receives topology.txt (ibnetdiscover text, what fabric.discovery reads) and plan.csv
// of the same fabric (ibw-labgen with the same topology options writes identical files).
// REST answers under /ufmRest, /ufmRestV2 and /ufmRestV3 without checking credentials (a load
// lab, not an API emulator: tests/ufm_emulator checks them). Telemetry answers on --port and,
// when given, also on --telemetry-port (9001 like UFM Telemetry). Every request moves the
// model to now first; a REST list is then rendered under the model's lock and sent without it,
// so a slow reader of one list does not hold up telemetry (as separate UFM services would not). The
// chosen REST port goes to --port-file (atomically); the lab exits 0 on SIGTERM/SIGINT or after
// --duration seconds, printing its fault counts to stderr.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <utility>  // before Boost.Asio: its awaitable.hpp uses std::exchange without it
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "cli/args.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/lab_main.h"
#include "tests/lab/ufm_lab_model.h"

namespace {

namespace net = boost::asio;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

std::mutex g_model_mutex;
using ibw::lab::g_stop;
using ibw::lab::now_us;

// Writes a chunked 200 answer whose body the renderer streams.
void stream(tcp::socket& sock, unsigned version, bool keep_alive, const char* type,
            const std::function<void(const ibw::lab::LabSink&)>& render) {
  http::response<http::empty_body> head{http::status::ok, version};
  head.set(http::field::content_type, type);
  head.keep_alive(keep_alive);
  head.chunked(true);
  http::response_serializer<http::empty_body> sr{head};
  http::write_header(sock, sr);
  render([&](std::string_view piece) {
    if (!piece.empty()) net::write(sock, http::make_chunk(net::buffer(piece.data(), piece.size())));
  });
  net::write(sock, http::make_chunk_last());
}

void reply(tcp::socket& sock, unsigned version, bool keep_alive, http::status status,
           const std::string& body, const std::string& location = "") {
  http::response<http::string_body> res{status, version};
  res.set(http::field::content_type, "application/json");
  if (!location.empty()) res.set(http::field::location, location);
  res.keep_alive(keep_alive);
  res.body() = body;
  res.prepare_payload();
  http::write(sock, res);
}

void serve(tcp::socket sock, ibw::lab::UfmLabModel& model) {
  using ibw::lab::LabSink;
  boost::beast::flat_buffer buf;
  boost::system::error_code ec;
  int job = 0;
  for (;;) {
    http::request<http::string_body> req;
    http::read(sock, buf, req, ec);
    if (ec) return;
    std::string target(req.target());
    std::string path = target.substr(0, target.find('?'));
    for (const char* prefix : {"/ufmRestV2", "/ufmRestV3", "/ufmRest"})
      if (path.rfind(prefix, 0) == 0) {
        path.erase(0, std::string_view(prefix).size());
        break;
      }
    bool ka = req.keep_alive();
    unsigned v = req.version();
    try {
      std::unique_lock<std::mutex> lock(g_model_mutex);
      int64_t now = now_us();
      model.advance(now);
      // A REST list is rendered under the lock and sent without it: the daemon reads the
      // 330 MB port list slowly (it parses as it reads), and UFM Telemetry is a service of its
      // own, which must not wait for that read (the lab's fetch took 5 s when it did).
      auto body = [&](void (ibw::lab::UfmLabModel::*fn)(const LabSink&) const) {
        std::vector<std::string> pieces;
        (model.*fn)([&](std::string_view piece) { pieces.emplace_back(piece); });
        lock.unlock();
        stream(sock, v, ka, "application/json", [&](const LabSink& s) {
          for (std::string& piece : pieces) {
            s(piece);
            std::string().swap(piece);
          }
        });
      };
      if (path == "/csv/metrics" || path == "/labels/csv/metrics" ||
          path.rfind("/csv/xcset/", 0) == 0)
        stream(sock, v, ka, "text/csv", [&](const LabSink& s) { model.telemetry_csv(now, s); });
      else if (path == "/metrics" || path == "/labels/metrics")
        stream(sock, v, ka, "text/plain; version=0.0.4",
               [&](const LabSink& s) { model.telemetry_prometheus(now, s); });
      else if (path == "/app/events")
        body(&ibw::lab::UfmLabModel::events_json);
      else if (path == "/resources/ports")
        body(&ibw::lab::UfmLabModel::ports_json);
      else if (path == "/resources/links")
        body(&ibw::lab::UfmLabModel::links_json);
      else if (path == "/resources/systems")
        body(&ibw::lab::UfmLabModel::systems_json);
      else if (path == "/app/alarms" || path == "/app/unhealthy_ports" || path == "/jobs")
        reply(sock, v, ka, http::status::ok, "[]");
      else if (path == "/app/ufm_version")
        reply(sock, v, ka, http::status::ok, R"({"ufm_release_version":"6.17.0-lab"})");
      else if (path == "/dologin") {
        http::response<http::string_body> res{http::status::ok, v};
        res.set(http::field::set_cookie, "ufm_session=lab; Path=/");
        res.keep_alive(ka);
        res.prepare_payload();
        http::write(sock, res);
      } else if (path == "/actions" && req.method() == http::verb::post)
        reply(sock, v, ka, http::status::accepted, "",
              "http://lab/ufmRest/jobs/" + std::to_string(++job));
      else if (path.rfind("/jobs/", 0) == 0)
        reply(sock, v, ka, http::status::ok,
              R"({"ID":")" + path.substr(6) + R"(","Status":"Completed","Progress":100})");
      else
        reply(sock, v, ka, http::status::not_found, R"({"error":"not in the lab"})");
    } catch (const std::exception&) {
      return;  // the client went away mid-answer
    }
    if (!ka) return;
  }
}

void accept_loop(tcp::acceptor& acc, ibw::lab::UfmLabModel& model) {
  for (;;) {
    boost::system::error_code ec;
    tcp::socket sock(acc.get_executor());
    acc.accept(sock, ec);
    if (ec) {
      if (!acc.is_open()) return;
      continue;
    }
    std::thread(serve, std::move(sock), std::ref(model)).detach();
  }
}

}  // namespace

int main(int argc, char** argv) {
  using ibw::cli::Args;
  std::vector<ibw::cli::OptionSpec> specs;
  for (const char* name : {"out", "tiers", "k", "leaves", "spines", "hosts-per-leaf", "port",
                           "telemetry-port", "port-file", "duration", "burst-rate", "burst-seconds",
                           "flap-rate", "flap-down", "background", "events-keep", "seed"})
    specs.push_back({name});
  try {
    Args args(specs, argc, argv, 1);
    if (!args.has("out")) throw ibw::cli::UsageError("--out DIR is required");
    auto num = [&](const char* k, double def) {
      auto s = args.get(k);
      return s ? std::stod(*s) : def;
    };
    ibw::lab::FatTreeSpec spec;
    spec.tiers = args.get_int("tiers", 2, 3).value_or(2);
    spec.k = args.get_int("k", 2, 128).value_or(8);
    spec.leaves = args.get_int("leaves", 1, 100000).value_or(spec.leaves);
    spec.spines = args.get_int("spines", 1, 100000).value_or(spec.spines);
    spec.hosts_per_leaf = args.get_int("hosts-per-leaf", 1, 250).value_or(spec.hosts_per_leaf);
    spec.spare_ports = 0;
    ibw::lab::Lab lab = ibw::lab::make_fat_tree(spec);
    std::filesystem::path dir = *args.get("out");
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "topology.txt") << ibw::lab::to_ibnetdiscover(lab);
    std::ofstream(dir / "plan.csv") << ibw::lab::plan_csv(lab);

    ibw::lab::UfmLabOptions o;
    o.burst_per_min = num("burst-rate", o.burst_per_min);
    o.burst_s = num("burst-seconds", o.burst_s);
    o.flap_per_min = num("flap-rate", o.flap_per_min);
    o.flap_down_s = num("flap-down", o.flap_down_s);
    o.background_share = num("background", o.background_share);
    o.events_keep = static_cast<size_t>(num("events-keep", static_cast<double>(o.events_keep)));
    o.seed = static_cast<uint32_t>(num("seed", 1));
    ibw::lab::UfmLabModel model(lab, o, now_us());

    net::io_context io;
    auto listen = [&](int port) {
      auto acc = std::make_unique<tcp::acceptor>(
          io, tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<uint16_t>(port)));
      return acc;
    };
    auto rest = listen(static_cast<int>(num("port", 0)));
    std::unique_ptr<tcp::acceptor> tele;
    if (args.has("telemetry-port")) tele = listen(static_cast<int>(num("telemetry-port", 9001)));
    int port = rest->local_endpoint().port();
    if (auto pf = args.get("port-file")) {
      std::string tmp = *pf + ".tmp";
      std::ofstream(tmp) << port << "\n";
      std::filesystem::rename(tmp, *pf);
    }
    std::cerr << "ibw-ufmlab: " << lab.nodes.size() << " nodes, " << model.port_count()
              << " linked ports, REST + telemetry on 127.0.0.1:" << port
              << (tele ? ", telemetry also on :" + std::to_string(tele->local_endpoint().port())
                       : std::string())
              << ", files in " << dir.string() << std::endl;
    ibw::lab::stop_on_signals();
    std::signal(SIGPIPE, SIG_IGN);
    std::thread(accept_loop, std::ref(*rest), std::ref(model)).detach();
    if (tele) std::thread(accept_loop, std::ref(*tele), std::ref(model)).detach();
    double duration = num("duration", 0);
    auto until = std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(static_cast<int64_t>(duration * 1000));
    while (!g_stop && (duration <= 0 || std::chrono::steady_clock::now() < until))
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::lock_guard<std::mutex> lock(g_model_mutex);
    const auto& st = model.stats();
    std::cerr << "ibw-ufmlab: stopping; " << st.flaps << " flaps, " << st.bursts
              << " error bursts, " << st.events << " events, " << st.advances << " steps"
              << std::endl;
    std::_Exit(0);  // detached connection threads may be blocked in a read
  } catch (const ibw::cli::UsageError& e) {
    std::cerr << "ibw-ufmlab: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ibw-ufmlab: error: " << e.what() << "\n";
    return 2;
  }
}

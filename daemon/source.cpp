// The publish sequence and the rest of SourceContext (daemon/source.h).
#include "daemon/source.h"

#include <algorithm>
#include <cctype>
#include <thread>

#include "daemon/logger.h"
#include "fabric/model.h"
#include "ingest/opensm_sm_state.h"

namespace ibw::daemon {

void enrich_all(const Topology* topo, std::vector<ingest::Event>& events) {
  if (!topo) return;
  for (auto& e : events) topo->correlator->enrich(e);
}

void name_port_labels(const Topology* topo, std::string& text) {
  if (!topo) return;
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  std::string out;
  size_t done = 0;  // text before this is in out
  for (size_t at = text.find("0x"); at != std::string::npos; at = text.find("0x", at + 1)) {
    if (at > 0 && (std::isxdigit(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_'))
      continue;  // inside a word
    size_t slash = at + 18, end = slash + 1;
    if (end >= text.size() || text[slash] != '/' || !digit(text[end])) continue;
    const std::optional<uint64_t> guid = fabric::parse_guid(std::string_view(text).substr(at, 18));
    if (!guid) continue;
    while (end < text.size() && digit(text[end])) ++end;
    const std::string name = topo->correlator->node_name(*guid);
    if (name.empty()) continue;
    out.append(text, done, at - done).append(name).append(text, slash, end - slash);
    done = end;
    at = end - 1;
  }
  if (!done) return;
  out.append(text, done);
  text = std::move(out);
}

namespace {

bool has_rows(const store::WriteBatch& b) {
  return !b.events.empty() || !b.samples.empty() || !b.ports.empty() || !b.port_counters.empty() ||
         !b.ufm_ports.empty() || !b.ufm_ports_removed.empty() || !b.cursors.empty();
}

}  // namespace

void SourceContext::add_incidents(store::WriteBatch& batch) {
  if (batch.events.empty()) return;
  for (const auto& e : batch.events) {  // heavy sweeps and OpenSM's logged state, for the SM
    if (e.kind == ingest::kind::sweep || e.kind == ingest::kind::subnet_up)
      d_.fabric->sm.note_sweep(e.time_us);
    else if (auto st = ingest::sm_state_of(e); st != ingest::SmLogState::none)
      d_.fabric->sm.note_log_state(std::string(ingest::sm_log_state_name(st)), e.time_us);
  }
  // The tracker's own events (an incident opened, a new reboot) are stored and shown with them.
  auto opened = d_.fabric->incidents.add(batch.events);
  batch.events.insert(batch.events.end(), opened.begin(), opened.end());
}

bool SourceContext::push(store::WriteBatch batch) {
  add_incidents(batch);
  return d_.queue->push(std::move(batch));
}

void SourceContext::nap(std::chrono::microseconds d) const {
  using Clock = std::chrono::steady_clock;
  auto until = Clock::now() + d;
  while (running() && Clock::now() < until)
    std::this_thread::sleep_for(std::min<std::chrono::microseconds>(
        std::chrono::milliseconds(50),
        std::chrono::duration_cast<std::chrono::microseconds>(until - Clock::now())));
}

Published SourceContext::publish(const std::shared_ptr<const Topology>& topo,
                                 store::WriteBatch batch,
                                 const std::function<void(store::WriteBatch&)>& update,
                                 Evaluate when, const std::vector<ingest::Event>* rule_events) {
  Published out;
  size_t kept = 0;
  bool events = false;
  bool partial = when == Evaluate::with_rule_events || when == Evaluate::with_events;
  std::vector<uint64_t> ports;  // of the events a partial evaluation looks at
  {
    std::lock_guard<std::mutex> publish(d_.fabric->publish_mutex);
    if (update) update(batch);
    events = !batch.events.empty();
    if (topo) d_.fabric->incidents.learn(topo->links);
    add_incidents(batch);
    if (d_.rules && when != Evaluate::never) {
      const auto& fed = rule_events ? *rule_events : batch.events;
      kept = d_.rules->add_events(fed);
      if (!batch.port_counters.empty()) d_.rules->add_deltas(batch.port_counters), partial = false;
      for (const auto& e : fed)
        if (d_.rules->wants(e))
          ports.push_back(CongestionBoard::port_key(e.node_guid, e.port));
        else if (when == Evaluate::with_events)
          partial = false;  // (an event no rule reads, yet it asks for an evaluation)
    }
    if (has_rows(batch)) out.queued = d_.queue->push(std::move(batch));
  }
  if (!out.queued) return out;
  bool evaluate_now = when == Evaluate::always || (when == Evaluate::with_events && events) ||
                      (when == Evaluate::with_rule_events && kept);
  if (evaluate_now) {
    auto started = std::chrono::steady_clock::now();
    if (partial) std::sort(ports.begin(), ports.end());
    out.evaluate_parts = evaluate(topo, partial ? &ports : nullptr);
    out.evaluate_us = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
  }
  return out;
}

rules::EvaluateTimes SourceContext::evaluate(const std::shared_ptr<const Topology>& topo,
                                             const std::vector<uint64_t>* ports) {
  rules::EvaluateTimes times;
  if (!d_.rules || !topo) return times;
  ActionJob job;
  job.topo = topo;
  const std::vector<rules::LinkInfo>* links = &topo->links;
  std::vector<rules::LinkInfo> some;  // the links with an end among `ports`
  std::vector<uint64_t> looked;       // their ports: the board's scope
  if (ports) {
    auto in = [&](uint64_t guid, int port) {
      return std::binary_search(ports->begin(), ports->end(),
                                CongestionBoard::port_key(guid, port));
    };
    for (const auto& l : topo->links)
      if (in(l.node_guid, l.port) || (l.peer_guid && in(l.peer_guid, l.peer_port))) {
        some.push_back(l);
        looked.push_back(CongestionBoard::port_key(l.node_guid, l.port));
      }
    std::sort(looked.begin(), looked.end());
    links = &some;
  }
  std::vector<rules::Verdict> reports;  // congestion and report-only rules: never acted on
  int64_t now = clock().now_us();
  auto acting = d_.rules->evaluate(*links, now, &reports, &times);
  for (auto& v : reports) name_port_labels(topo.get(), v.explanation);
  store::WriteBatch feed;
  feed.events = d_.fabric->congestion.update(reports, now, ports ? &looked : nullptr);
  if (!feed.events.empty()) {
    enrich_all(topo.get(), feed.events);
    d_.queue->push(std::move(feed));
  }
  for (auto& v : acting) {
    actions::Finding f;
    name_port_labels(topo.get(), v.explanation);
    if (auto rec = d_.fabric->ports.get(v.node_guid, v.port)) f.counters = rec->counters;
    f.verdict = std::move(v);
    job.findings.push_back(std::move(f));
  }
  if (job.findings.empty()) return times;
  size_t n = job.findings.size();
  if (!d_.worker->submit(std::move(job)))
    log(LogLevel::warning, "action queue full; verdicts deferred to the next evaluation",
        {{"verdicts", n}});
  return times;
}

std::optional<SourceHealthEntry> Source::health(const SourceContext& ctx) const {
  for (auto& e : ctx.fabric().health.snapshot())
    if (e.name == name()) return e;
  return std::nullopt;
}

}  // namespace ibw::daemon

// GET /decisions, /workorders, /workorders/{id}, PATCH /workorders/{id}, POST
// /ports/{node}/{port}/disable|enable, GET and POST /audit (web/api.h).
#include <algorithm>

#include "fabric/model.h"
#include "fabric/text_util.h"
#include "store/record_json.h"
#include "store/remedy_json.h"
#include "web/api_core.h"

namespace ibw::web {
namespace api_remedy_detail {

using nlohmann::ordered_json;

constexpr size_t kMaxReason = 1000;
constexpr size_t kMaxNote = 4000;
constexpr size_t kMaxAssignee = 200;

int64_t order_id(const Call& c) {
  auto id = fabric::text::to_int<int64_t>(c.params.at(0));
  if (!id || *id < 1) throw ApiError(400, "id: must be a work order number");
  return *id;
}

// {"<name>": [...], "last_id": id of the last item (after_id when none), "more": a full page}
template <typename T, typename ToJson>
Response page(const char* name, const std::vector<T>& items, int64_t after_id, size_t limit,
              ToJson to_json) {
  ordered_json list = ordered_json::array();
  int64_t last = after_id;
  for (const auto& item : items) {
    list.push_back(to_json(item));
    last = item.id;
  }
  ordered_json j;
  j[name] = std::move(list);
  j["last_id"] = last;
  j["more"] = items.size() == limit;
  return json_response(200, j);
}

// ?after_id= and ?limit= (1 to 10000, default `limit`) into a list query.
template <typename ListQuery>
void paging(ListQuery& q, const Call& c, int64_t limit) {
  q.after_id = c.query.integer("after_id", 0, INT64_MAX, 0);
  q.limit = static_cast<size_t>(c.query.integer("limit", 1, 10'000, limit));
}

const char* kStatuses[] = {"active", "open", "in_progress", "resolved", "verified", "reopened"};

}  // namespace api_remedy_detail

Response ApiCore::get_decisions(Call& c) {
  using namespace api_remedy_detail;
  store::DecisionQuery q;
  q.since_us = c.query.time("since", c.now_us, 0);
  paging(q, c, 500);
  auto list = c.store(stores_).decisions(q);
  return page("decisions", list, q.after_id, q.limit,
              [](const core::DecisionRecord& d) { return ordered(store::decision_json(d)); });
}

Response ApiCore::get_workorders(Call& c) {
  using namespace api_remedy_detail;
  store::WorkOrderQuery q;
  q.status = c.query.get("status").value_or("");
  if (!q.status.empty() &&
      std::find(std::begin(kStatuses), std::end(kStatuses), q.status) == std::end(kStatuses))
    throw ApiError(400,
                   "status: must be active, open, in_progress, resolved, verified or reopened");
  paging(q, c, 1000);
  auto& db = c.store(stores_);
  auto list = db.workorders(q);
  return page("workorders", list, q.after_id, q.limit, [&](const core::WorkOrder& o) {
    auto j = store::workorder_json(o);
    j["slurm"] = store::order_slurm_json(db, o);
    return ordered(j);
  });
}

Response ApiCore::get_workorder(Call& c) {
  int64_t id = api_remedy_detail::order_id(c);
  auto& db = c.store(stores_);
  auto o = db.workorder(id);
  if (!o) throw ApiError(404, "no work order " + std::to_string(id));
  auto j = store::workorder_json(*o);
  j["slurm"] = store::order_slurm_json(db, *o);
  return json_response(200, ordered(j));
}

// Same rules as `ibwarden workorders --update`: a technician takes an order (in_progress),
// reopens it, or resolves one whose link ibwarden did not disable; a disabled link is resolved
// by enabling the port, which goes through the guard.
Response ApiCore::patch_workorder(Call& c) {
  using namespace api_remedy_detail;
  int64_t id = order_id(c);
  nlohmann::json body = body_object(c.request, {"status", "assignee", "note"});
  if (body.empty()) throw ApiError(400, "body: give status, assignee or note");
  std::string status = body_string(body, "status", 32);
  if (body.contains("status") && status != "in_progress" && status != "resolved" &&
      status != "open")
    throw ApiError(400, "status: must be in_progress, resolved or open");
  std::string assignee = body_string(body, "assignee", kMaxAssignee);
  std::string note = body_string(body, "note", kMaxNote);

  auto st = backend_.open_store(c.fabric, /*writable=*/true);
  // Read, change, write only if nobody (the action worker reopening the order, another PATCH)
  // wrote it in between. After such a write, an assignee or note is applied to the newest
  // order; a status is not when the order was reopened or re-graded meanwhile: the client
  // decided about an offence that is no longer the current one (409, reload).
  std::optional<core::WorkOrder> first = st->workorder(id);
  for (int attempt = 1;; ++attempt) {
    try {
      return patch_once(c, *st, id, body, status, assignee, note);
    } catch (const store::StoreConflict&) {
      auto now = st->workorder(id);
      if (first && now && !status.empty() &&
          (now->status != first->status || now->offences != first->offences))
        throw ApiError(409, "work order " + std::to_string(id) + " changed meanwhile (now " +
                                now->status + ", offence " + std::to_string(now->offences) +
                                "); reload it and decide again");
      if (attempt == 5)
        throw ApiError(409, "work order " + std::to_string(id) + " keeps changing; try again");
    }
  }
}

Response ApiCore::patch_once(Call& c, store::RemedyStore& st, int64_t id,
                             const nlohmann::json& body, const std::string& status,
                             const std::string& assignee, const std::string& note) {
  auto order = st.workorder(id);
  if (!order) throw ApiError(404, "no work order " + std::to_string(id));
  core::WorkOrder o = *order;
  if (status == "resolved" && o.port_disabled) {
    std::string where;
    for (const auto& d : st.disabled_ports())
      if (d.link_key == o.link_key) {
        const core::LinkEnd& end = d.node_guid == o.b.guid && d.port == o.b.port ? o.b : o.a;
        where = (end.node.empty() ? fabric::format_guid(end.guid) : end.node) + "/" +
                std::to_string(end.port);
      }
    if (where.empty()) where = store::workorder_json(o)["a"].get<std::string>();
    throw ApiError(409, "work order " + std::to_string(id) + " has its link disabled; enable " +
                            where + " (POST /api/v1/ports/.../enable), which resolves the order");
  }
  if (!status.empty() && status != o.status) {
    o.status = status;
    o.resolved_us = status == "resolved" ? c.now_us : 0;
  }
  if (body.contains("assignee")) o.assignee = assignee;
  if (body.contains("note")) o.note = note;
  o.updated_us = c.now_us;
  store::WriteBatch batch;
  batch.outbox = backend_.webhook_outbox();
  batch.workorders_if_version = true;
  batch.workorders.push_back(o);
  st.write(batch);
  auto stored = st.workorder(id);
  if (!stored) throw ApiError(500, "work order " + std::to_string(id) + " vanished");
  return json_response(200, ordered(store::workorder_json(*stored)));
}

Response ApiCore::post_disable(Call& c) {
  return port_action(c, PortActionKind::disable);
}
Response ApiCore::post_enable(Call& c) {
  return port_action(c, PortActionKind::enable);
}

Response ApiCore::port_action(Call& c, PortActionKind kind) {
  using namespace api_remedy_detail;
  nlohmann::json body = body_object(c.request, {"reason", "force"});
  std::string reason = body_string(body, "reason", kMaxReason);
  if (fabric::text::trim(reason).empty()) throw ApiError(400, "reason: required (say why)");
  bool force = false;
  if (auto it = body.find("force"); it != body.end()) {
    if (!it->is_boolean()) throw ApiError(400, "force: must be true or false");
    force = it->get<bool>();
  }
  if (force && c.who.role < Role::admin) throw ApiError(403, "force: needs the admin role");
  // Never on another fabric: this instance's executor reaches its own fabric only.
  only_own_fabric(c);
  auto list = port_list(c);
  store::PortRecord p = find_port(c, *list);
  PortActionRequest r;
  r.action = kind;
  r.node_guid = p.node_guid;
  r.node = p.node;
  r.port = p.port;
  r.reason = std::string(fabric::text::trim(reason));
  r.force = force;
  r.actor = c.who.actor;
  core::DecisionRecord d = backend_.port_action(r);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    PortCache& pc = ports_[c.fabric];
    pc.list.reset();  // the disabled list changed
    ++pc.generation;
  }
  // executed and dry_run: 200; refused by the guard: 409; failed on the fabric: 502.
  int status = d.status == "refused" ? 409 : d.status == "failed" ? 502 : 200;
  return json_response(status, ordered(store::decision_json(d)));
}

Response ApiCore::get_audit(Call& c) {
  only_own_fabric(c);
  auto audit = backend_.last_audit();
  if (!audit) throw ApiError(404, "no audit has run yet (POST /api/v1/audit runs one)");
  return json_response(200, ordered(*audit));
}

Response ApiCore::post_audit(Call& c) {
  body_object(c.request, {});
  only_own_fabric(c);
  return json_response(200, ordered(backend_.run_audit()));
}

}  // namespace ibw::web

"""The emulator's control API for tests (/emulator/...), outside UFM's API: failure
injection, event generation, telemetry values, and what the emulator recorded. See README.md.
"""

import json
import time

import events as ev_mod
from fabric import render_port

FAIL_KINDS = ("5xx", "slow", "timeout", "malformed", "partial", "401", "duplicates")


def js(obj, status=200):
    from state import js as state_js

    return state_js(obj, status)


def error(status, message):
    return js({"error": message}, status)


def handle(emu, method, path, params, raw):
    try:
        body = json.loads(raw) if raw else {}
    except ValueError:
        return error(400, "body must be JSON")
    n = int(params.get("n", ["0"])[0] or 0)
    if path == "/emulator/state":
        with emu.lock:
            return js({"events": len(emu.events), "next_id": emu.next_id,
                       "restarts": emu.restarts, "requests": emu.requests,
                       "sessions": len(emu.sessions), "schema": emu.schema,
                       "fail": emu.fail, "duplicates_left": emu.dup_left,
                       "jobs": len(emu.jobs), "unhealthy": sorted(emu.unhealthy),
                       "tokens": len(emu.tokens),
                       "revoked": sum(1 for t in emu.tokens if t["revoked"])})
    if path == "/emulator/actions":
        with emu.lock:
            return js(emu.actions)
    if method != "POST":
        return error(405, "control endpoints other than state/actions take POST")
    if path == "/emulator/control":
        return control_post(emu, body)
    if path == "/emulator/backlog":
        spacing = float(params.get("spacing_ms", ["100"])[0]) / 1000.0
        ids = emu.add_backlog(n, spacing)
        return js({"first_id": ids[0] if ids else None, "last_id": ids[-1] if ids else None})
    if path == "/emulator/storm":
        now = time.time()
        with emu.lock:
            links = emu.fabric.links
            ids = emu.append([ev_mod.make(329 if i % 2 == 0 else 328, *links[i % len(links)],
                                           when=now) for i in range(n)])
        return js({"ids": ids})
    if path == "/emulator/events":
        return control_events(emu, body)
    if path == "/emulator/telemetry":
        with emu.lock:
            return emu.telemetry.control(body)
    if path == "/emulator/port":
        with emu.lock:
            p = emu.fabric.find_port(str(body.get("port", "")))
            if p is None:
                return error(400, "unknown port")
            if "high_ber" in body:
                p.high_ber = body["high_ber"] or "N/A"
            if "disabled" in body:
                p.disabled = bool(body["disabled"])
            if "logical_state" in body:
                p.logical_override = body["logical_state"] or None
            if "physical_state" in body:
                p.physical_override = body["physical_state"] or None
            return js(render_port(p, p.name in emu.unhealthy))
    if path == "/emulator/alarms":
        return control_alarms(emu, body)
    return error(404, "no such control endpoint")


def control_post(emu, body):
    kind = body.get("fail")
    if kind == "restart":
        emu.restart(int(body.get("storm", 0)), bool(body.get("keep_sessions", False)))
        return js({"restarts": emu.restarts})
    with emu.lock:
        if "schema" in body:
            emu.schema = str(body["schema"])
            emu.version += 1
        if "job_polls" in body:
            emu.job_polls = int(body["job_polls"])
        if "job_status" in body:
            emu.job_status = {"status": body["job_status"], "count": int(body.get("count", 1))}
        if kind in (None, "none"):
            if kind == "none":
                emu.fail, emu.dup_left = None, 0
            return js({"ok": True})
        if kind not in FAIL_KINDS:
            return error(400, "fail must be one of %s, restart or none" % ", ".join(FAIL_KINDS))
        count = int(body.get("count", 1))
        if kind == "duplicates":
            emu.dup_left = count
        else:
            emu.fail = {"kind": kind, "count": count, "path": str(body.get("path", "")),
                         "delay": float(body.get("delay", 2.0 if kind == "slow" else 10.0)),
                         "status": int(body.get("status", 503)),
                         "keep": float(body.get("keep", 0.25))}
        return js({"ok": True})


def control_events(emu, body):
    items = body.get("events", [])
    built = []
    with emu.lock:
        for it in items:
            port = emu.fabric.find_port(str(it["port"])) if it.get("port") else None
            if it.get("port") and port is None:
                return error(400, "unknown port %s" % it["port"])
            peer = emu.fabric.find_port(str(it["peer"])) if it.get("peer") else None
            kind = it.get("kind")
            type_ = ev_mod.KINDS.get(kind) if kind else None
            if kind == "threshold":
                type_ = int(it.get("type", 110))
            if type_ is None:
                type_ = int(it.get("type", 552))
            over = {k: it[k] for k in ("severity", "description", "name", "reason", "value",
                                       "threshold", "ber", "object_name", "object_path",
                                       "category") if k in it}
            built.append(ev_mod.make(type_, port, peer, when=it.get("at"), **over))
        return js({"ids": emu.append(built)})


def control_alarms(emu, body):
    """{"clear": <alarm id> | "all"} removes alarms; otherwise raises one: {"port", "type",
    "severity", "name", "reason", "count", "object_name", "object_path"}."""
    with emu.lock:
        if "clear" in body:
            gone = emu.clear_alarms(body["clear"])
            return js({"cleared": len(gone)})
        port = emu.fabric.find_port(str(body["port"])) if body.get("port") else None
        if body.get("port") and port is None:
            return error(400, "unknown port %s" % body["port"])
        over = {k: body[k] for k in ("severity", "name", "reason", "object_name", "object_path")
                if k in body}
        if "reason" in over:
            over["description"] = over.pop("reason")
        alarm = emu.raise_alarm(port, int(body.get("type", 394)), int(body.get("count", 1)),
                                **over)
        return js(alarm)

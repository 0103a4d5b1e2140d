"""The emulator's state and request handling (UFM REST API, UFM Telemetry, /emulator control).
Which behaviours follow the docs and which are guesses: README.md in this folder."""

import base64
import json
import secrets
import threading
import time
import urllib.parse

import control
import events as ev_mod
from fabric import guid_hex, render_link, render_port, render_system
from telemetry import Telemetry

PREFIXES = ("/ufmRestV2", "/ufmRestV3", "/ufmRest")  # longest first
TELEMETRY_PATHS = ("/csv/metrics", "/metrics", "/labels/metrics", "/labels/csv/metrics")


class Reply:
    def __init__(self, status=200, body=b"", content_type="application/json", headers=(),
                 drop=False):
        self.status, self.body, self.content_type = status, body, content_type
        self.headers, self.drop = list(headers), drop


def js(obj, status=200, headers=()):
    return Reply(status, json.dumps(obj).encode(), headers=headers)


def error(status, message):
    return js({"error": message}, status)


class Emulator:
    def __init__(self, fabric, args):
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.fabric = fabric
        self.schema = args.schema
        self.tz = args.tz_offset
        self.user, self.password, self.token = args.user, args.password, args.token
        # Access tokens (D-TK): the --token one plus those created through /ufmRest/app/tokens.
        self.tokens = [{"access_token": args.token, "revoked": False,
                        "issued_at": int(time.time()), "expires_in": 315360000,
                        "username": args.user}]
        self.job_polls = args.job_polls
        self.telemetry = Telemetry(fabric)
        self.events, self.next_id, self.version, self.cache = [], 1, 0, {}
        self.alarms, self.next_alarm = {}, 1
        self.sessions, self.jobs, self.next_job = set(), {}, 1
        self.actions, self.unhealthy = [], {}
        self.fail, self.dup_left, self.job_status = None, 0, None
        self.restarts, self.requests = 0, 0

    # ---- events -------------------------------------------------------------------------
    def append(self, new):
        """Assigns ids; the caller holds the lock."""
        ids = []
        for e in new:
            e["id"] = self.next_id
            self.next_id += 1
            self.events.append(e)
            ids.append(e["id"])
            if e["severity"] != "Info":
                key = (e["type"], e["object_name"])
                a = self.alarms.get(key)
                if a is None:
                    a = self.alarms[key] = ev_mod.alarm_of(e, self.next_alarm, 0)
                    self.next_alarm += 1
                a["event_count"] += 1
                a["timestamp"] = ev_mod.local_stamp(e["time"], self.tz, self.schema)
        self.version += 1
        return ids

    def raise_alarm(self, port, type_, count=1, **over):
        """An alarm without an event (control /emulator/alarms): a new one, or the open one of
        the same type and object counts more occurrences (and takes a given severity). The
        caller holds the lock."""
        e = ev_mod.make(type_, port, **over)
        if "severity" in over:
            e["severity"] = over["severity"]
        key = (e["type"], e["object_name"])
        a = self.alarms.get(key)
        if a is None:
            a = self.alarms[key] = ev_mod.alarm_of(e, self.next_alarm, 0)
            self.next_alarm += 1
        a["severity"] = e["severity"]
        a["event_count"] += count
        a["timestamp"] = ev_mod.local_stamp(e["time"], self.tz, self.schema)
        return a

    def clear_alarms(self, which):
        """Removes the alarm with id `which` ("all": every one); the ids removed."""
        gone = [k for k, a in self.alarms.items() if which == "all" or str(a["id"]) == str(which)]
        for k in gone:
            self.alarms.pop(k)
        return gone

    def add_backlog(self, n, spacing_s):
        end = time.time() - 1.0
        with self.lock:
            return self.append(ev_mod.backlog(self.fabric, n, end, spacing_s))

    def restart(self, storm, keep_sessions):
        with self.lock:
            self.events, self.next_id, self.alarms, self.next_alarm = [], 1, {}, 1
            self.jobs, self.next_job = {}, 1
            self.restarts += 1
            if not keep_sessions:
                self.sessions.clear()
            now = time.time()
            links = self.fabric.links
            self.append([ev_mod.make(328, *links[i % len(links)], when=now) for i in range(storm)]
                        if links else [])

    def events_body(self, params):
        filters = {k: v[0] for k, v in params.items()
                   if k in ("object_name", "type", "category", "severity")}
        dup = self.dup_left > 0
        if dup:
            self.dup_left -= 1
        key = (self.version, self.schema, dup)
        if not filters and key in self.cache:
            return self.cache[key]
        out = []
        for e in self.events:
            r = ev_mod.render(e, self.schema, self.tz)
            if any(str(r.get(k)) != v for k, v in filters.items()):
                continue
            out.append(r)
            if dup:
                out.append(r)
        body = json.dumps(out).encode()
        if not filters:
            self.cache = {key: body}
        return body

    # ---- request entry ------------------------------------------------------------------
    def handle(self, method, raw_path, headers, body, host):
        path, _, query = raw_path.partition("?")
        params = urllib.parse.parse_qs(query)
        if path.startswith("/emulator/"):
            return control.handle(self, method, path, params, body)
        with self.lock:
            self.requests += 1
            fail = None
            f = self.fail
            if f and f["count"] > 0 and f["path"] in raw_path:
                f["count"] -= 1
                fail = dict(f)
        if fail:
            kind = fail["kind"]
            if kind == "5xx":
                return Reply(fail["status"], b"<html><body>Service Unavailable</body></html>",
                             "text/html")
            if kind == "401":
                return Reply(401, b"<html><body>Unauthorized</body></html>", "text/html",
                             [("WWW-Authenticate", 'Basic realm="UFM"')])
            if kind in ("slow", "timeout"):
                self.stopping.wait(fail["delay"])
                if kind == "timeout":
                    return Reply(drop=True)
        reply = self.route(method, path, params, headers, body, host)
        if fail and fail["kind"] == "partial" and reply.status == 200:
            try:
                items = json.loads(reply.body)
            except ValueError:
                items = None
            if isinstance(items, list):  # valid JSON, only the first `keep` of the list
                reply.body = json.dumps(items[: int(len(items) * fail["keep"])]).encode()
        if fail and fail["kind"] == "malformed" and reply.status == 200:
            reply.body = reply.body[: max(8, len(reply.body) // 2)] if len(reply.body) > 16 \
                else b'[{"id": 1, "na'
        return reply

    def route(self, method, path, params, headers, body, host):
        if path == "/dologin" and method == "POST":
            return self.login(body)
        if path in TELEMETRY_PATHS or path.startswith("/csv/xcset/"):
            with self.lock:
                return self.telemetry.serve(path)
        for prefix in PREFIXES:
            if path == prefix or path.startswith(prefix + "/"):
                if not self.authorised(prefix, headers):
                    return Reply(401, b"<html><body>Unauthorized</body></html>", "text/html",
                                 [("WWW-Authenticate", 'Basic realm="UFM"')])
                with self.lock:
                    return self.api(method, prefix, path[len(prefix):], params, body, host)
        return error(404, "not found")

    def login(self, body):
        form = urllib.parse.parse_qs(body.decode("utf-8", "replace"))
        user = form.get("httpd_username", [""])[0]
        password = form.get("httpd_password", [""])[0]
        if user != self.user or password != self.password:
            return Reply(401, b"<html><body>Login failed</body></html>", "text/html")
        sid = secrets.token_hex(16)
        with self.lock:
            self.sessions.add(sid)
        return Reply(200, b"<html><body>OK</body></html>", "text/html",
                     [("Set-Cookie", "ufm_session=%s; Path=/; HttpOnly" % sid)])

    def authorised(self, prefix, headers):
        h = {k.lower(): v for k, v in headers.items()}
        auth = h.get("authorization", "")
        if prefix == "/ufmRest":
            expect = base64.b64encode(("%s:%s" % (self.user, self.password)).encode()).decode()
            return auth == "Basic " + expect
        if prefix == "/ufmRestV3":
            with self.lock:
                return any(auth == "Basic " + t["access_token"] and not t["revoked"]
                           for t in self.tokens)
        cookies = [c.strip() for c in h.get("cookie", "").split(";")]
        with self.lock:
            return any(c.startswith("ufm_session=") and c[12:] in self.sessions for c in cookies)

    # ---- the UFM API (lock held) ----------------------------------------------------------
    def api(self, method, prefix, rel, params, body, host):
        parts = [p for p in rel.split("/") if p]
        if method == "GET" and rel == "/app/ufm_version":
            return js({"ufm_release_version": "6.17.0-emulator"})
        if method == "GET" and rel == "/app/events":
            return Reply(200, self.events_body(params))
        if method == "GET" and len(parts) == 3 and parts[:2] == ["app", "events"]:
            for e in self.events:
                if str(e["id"]) == parts[2]:
                    return js(ev_mod.render(e, self.schema, self.tz))
            return error(404, "event not found")
        if method == "POST" and rel == "/app/events/external_event":
            return self.external_event(prefix, body)
        if rel == "/app/tokens" and prefix == "/ufmRest":  # D-TK: basic auth only
            if method == "GET":
                return js([t for t in self.tokens if t["username"] == self.user])
            if method == "POST":
                t = {"access_token": secrets.token_urlsafe(22)[:30], "revoked": False,
                     "issued_at": int(time.time()), "expires_in": 315360000,
                     "username": self.user}
                self.tokens.append(t)
                return js(t)
        if method == "POST" and rel == "/app/tokens/revoke" and prefix == "/ufmRest":
            token = body.decode(errors="replace") if isinstance(body, bytes) else str(body)
            for t in self.tokens:
                if t["access_token"] and t["access_token"] in token:
                    t["revoked"] = True
                    return js({})
            return error(404, "token not found")
        if method == "GET" and parts[:2] == ["app", "alarms"]:
            alarms = sorted(self.alarms.values(), key=lambda a: a["id"])
            if len(parts) == 3:
                match = [a for a in alarms if str(a["id"]) == parts[2]]
                return js(match[0]) if match else error(404, "alarm not found")
            return js(alarms)
        if method == "GET" and parts[:2] == ["resources", "ports"]:
            return self.ports(parts[2] if len(parts) > 2 else None, params)
        if method == "GET" and rel == "/resources/links":
            links = [render_link(a, b) for a, b in self.fabric.links if a.up()]
            sysf = params.get("system", [None])[0]
            if sysf:
                links = [l for l in links if sysf in (l["source_guid"], l["destination_guid"])]
            return js({"data": links} if "page_number" in params else links)
        if method == "GET" and parts[:2] == ["resources", "systems"]:
            systems = [render_system(s) for s in self.fabric.systems.values()]
            if len(parts) == 3:
                systems = [s for s in systems if s["system_guid"] == parts[2]]
            if "type" in params:
                systems = [s for s in systems if s["type"] == params["type"][0]]
            return js(systems)
        if method == "POST" and rel == "/actions":
            return self.action(prefix, body, host)
        if method == "GET" and parts[:1] == ["jobs"]:
            return self.job(parts[1] if len(parts) > 1 else None)
        if parts[:2] == ["app", "unhealthy_ports"]:
            return self.unhealthy_ports(method, prefix, parts[2] if len(parts) > 2 else None, body)
        return error(404, "no such resource: %s %s" % (method, rel))

    def record(self, method, prefix, rel, body):
        self.actions.append({"time": time.time(), "method": method, "api": prefix, "path": rel,
                             "body": body})

    def ports(self, names, params):
        recs = [render_port(p, p.name in self.unhealthy) for p in self.fabric.all_ports()]
        if names:
            wanted = set(names.split(","))
            return js([r for r in recs if r["name"] in wanted])
        if params.get("system_name"):
            return error(400, "unknown parameter system_name")  # documented quirk [M]
        if "system" in params:
            s = params["system"][0]
            recs = [r for r in recs if s in (r["systemID"], r["system_name"])]
        if params.get("active", [""])[0] == "true":
            recs = [r for r in recs if r["logical_state"] == "Active"]
        if params.get("sys_type"):
            want = params["sys_type"][0].lower()
            recs = [r for r in recs if r["description"].lower().startswith(want)]
        if params.get("high_ber_only", [""])[0] == "true":
            recs = [r for r in recs if r["high_ber_severity"] != "N/A"]
        return js(recs)

    def external_event(self, prefix, raw):
        try:
            body = json.loads(raw or b"{}")
            event_id = int(body["event_id"])
        except (ValueError, KeyError, TypeError):
            return error(400, "event_id is required")
        if event_id not in (551, 552, 553, 554):
            return error(400, "event_id must be 551-554")
        self.record("POST", prefix, "/app/events/external_event", body)
        e = ev_mod.make(event_id, None)
        e["description"] = str(body.get("description", ""))
        if body.get("object_name"):
            e["object_name"] = str(body["object_name"])
            e["object_type"] = str(body.get("otype") or "Site")
        self.append([e])
        return js({})

    def action(self, prefix, raw, host):
        try:
            body = json.loads(raw or b"{}")
            name, objects = str(body["action"]), list(body["object_ids"])
        except (ValueError, KeyError, TypeError):
            return error(400, "action and object_ids are required")
        self.record("POST", prefix, "/actions", body)
        jid = self.next_job
        self.next_job += 1
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() + self.tz))
        job = {"ID": str(jid), "Status": "Running", "Progress": 0,
               "Description": body.get("description", ""), "Operation": name,
               "RelatedObjects": objects, "Created": stamp, "LastUpdated": stamp,
               "Summary": "", "CreatedBy": self.user, "Foreground": True,
               "_polls": self.job_polls, "_body": body, "_done": False}
        self.jobs[jid] = job
        location = "http://%s%s/jobs/%d" % (host, prefix, jid)
        return Reply(202, b"", headers=[("Location", location)])

    def finish_job(self, job):
        body = job["_body"]
        status, summary = "Completed", ""
        port_id = (body.get("params") or {}).get("port_id")
        port = self.fabric.find_port(port_id) if port_id else None
        if port_id and port is None:
            status, summary = "Completed With Errors", "unknown port %s" % port_id
        elif port is not None and guid_hex(port.system.guid) not in job["RelatedObjects"]:
            status, summary = "Completed With Errors", "port %s is not on %s" % (
                port_id, ",".join(job["RelatedObjects"]))
        elif port is not None:
            was_up = port.up()
            if job["Operation"] == "disable":
                port.disabled = True
                self.append([ev_mod.make(336, port)] +
                            ([ev_mod.make(329, port)] if was_up else []))
            elif job["Operation"] == "enable":
                port.disabled = False
                self.append([ev_mod.make(337, port)] +
                            ([ev_mod.make(328, port)] if port.up() and not was_up else []))
            elif job["Operation"] == "reset" and was_up:
                self.append([ev_mod.make(329, port), ev_mod.make(328, port)])
            summary = "%s %s: done" % (job["Operation"], port_id)
        if self.job_status and self.job_status["count"] > 0:
            self.job_status["count"] -= 1
            status = self.job_status["status"]
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() + self.tz))
        job.update({"Status": status, "Progress": 100, "Summary": summary, "LastUpdated": stamp,
                    "_done": True})

    def job(self, ids):
        def public(j):
            return {k: v for k, v in j.items() if not k.startswith("_")}

        if ids is None:
            return js([public(j) for j in self.jobs.values()])
        found = []
        for i in ids.split(","):
            j = self.jobs.get(int(i)) if i.isdigit() else None
            if j is None:
                continue
            if not j["_done"]:
                if j["_polls"] > 0:
                    j["_polls"] -= 1
                else:
                    self.finish_job(j)
            found.append(public(j))
        if not found:
            return js([])  # documented: unknown id -> empty list
        return js(found[0] if len(found) == 1 else found)

    def unhealthy_ports(self, method, prefix, name, raw):
        if method == "GET":
            recs = list(self.unhealthy.values())
            if name:
                match = [r for n, r in self.unhealthy.items() if n == name]
                return js(match[0]) if match else error(400, "port is not unhealthy")
            return js(recs)
        if method != "PUT":
            return error(405, "method not allowed")
        try:
            body = json.loads(raw or b"{}")
            policy, ports = body["ports_policy"], list(body.get("ports") or [])
        except (ValueError, KeyError, TypeError):
            return error(400, "ports and ports_policy are required")
        if policy not in ("UNHEALTHY", "HEALTHY"):
            return error(400, "ports_policy must be UNHEALTHY or HEALTHY")
        if policy == "UNHEALTHY" and body.get("action", "isolate") not in ("isolate", "no_discover"):
            return error(400, "action must be isolate or no_discover")
        found = [(n, self.fabric.find_port(n)) for n in ports]
        unknown = [n for n, p in found if p is None]
        if unknown:
            return error(400, "unknown ports: %s" % ",".join(unknown))
        self.record("PUT", prefix, "/app/unhealthy_ports", body)
        for n, p in found:
            if policy == "HEALTHY":
                self.unhealthy.pop(n, None)
                continue
            peer = p.peer
            self.unhealthy[n] = {
                "UnhealthyNode": p.system.name, "UnhealthyPort": p.spec(),
                "UnhealthyPortNumber": p.number, "UnhealthyPortDname": p.dname,
                "UnhealthyGUID": guid_hex(p.system.guid),
                "PeerNode": peer.system.name if peer else "N/A",
                "PeerPort": peer.spec() if peer else "N/A",
                "PeerPortNumber": peer.number if peer else 0,
                "PeerPortDname": peer.dname if peer else "N/A",
                "PeerGUID": guid_hex(peer.system.guid) if peer else "N/A",
                "PeerLID": str(peer.system.lid) if peer else "0",
                "State": "Warning",
                "Condition": "MANUAL" if self.schema == ev_mod.LEGACY else ["MANUAL"],
                "StatusTime": time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime()),
            }
            if peer is not None:
                self.append([ev_mod.make(702, peer, p, reason="MANUAL")])
        return js({})

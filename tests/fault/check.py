#!/usr/bin/env python3
"""Checks of the kill -9 fault harness (scripts/fault-storm.sh), on what the storm left in LAB.

Reads (all written by fault-storm.sh):
  expected.tsv    events the OpenSM logs should give, oldest file first (ibw-fault-osm-events)
  events.json     `ibwarden events --format json`; decisions.json, workorders.json likewise
  ibwarden.db     the store: outbox keys and disabled_ports (SQLite, read only)
  samples.txt     "=== <time>" then the fabric's Disabled ports (iblinkinfo lines), every 0.5 s
  fabric.final    the Disabled ports after the last daemon stopped
  webhook.jsonl   every POST the receiver got ("failed": true when it answered 500)
  net             the ibsim topology (which ports are host links; link ends per switch)
Prints one line per failed check, then the figures line, and exits 1 if any check failed.
"""

import argparse
import collections
import glob
import json
import re
import sqlite3
import sys

# Kinds of the events an OpenSM log line gives (ingest::to_event); events of source opensm of
# other kinds (link_down, link_up...) come from re-discovery, not from one line.
LOG_KINDS = {"trap", "subnet_up", "sweep", "sm_error", "sm_state"}
LINK_LINE = re.compile(r'^(0x[0-9a-fA-F]+)\s+"[^"]*"\s+\d+\s+(\d+)\[')


def load_net(path):
    """(guid, port) -> (peer guid, peer port), and the set of CA GUIDs, from an ibsim net file."""
    guid_of, kind_of, links = {}, {}, {}
    guid = None
    for line in open(path):
        m = re.match(r'^(switchguid|caguid)=(0x[0-9a-fA-F]+)', line)
        if m:
            guid = int(m.group(2), 16)
            continue
        m = re.match(r'^(Switch|Hca)\s+\d+\s+"([^"]+)"', line)
        if m:
            guid_of[m.group(2)] = guid
            kind_of[guid] = m.group(1)
            current = guid
            continue
        m = re.match(r'^\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
        if m:
            links[(current, int(m.group(1)))] = (m.group(2), int(m.group(3)))
    peer = {k: (guid_of[name], p) for k, (name, p) in links.items() if name in guid_of}
    # A Hca line's guid is its node GUID (caguid); its port GUID differs, but the fabric's
    # iblinkinfo prints node GUIDs, as the store does.
    cas = {g for g, k in kind_of.items() if k == "Hca"}
    return peer, cas


def disabled_ports(lines):
    out = set()
    for line in lines:
        m = LINK_LINE.match(line)
        if m:
            out.add((int(m.group(1), 16), int(m.group(2))))
    return out


def load_samples(path):
    samples, current = [], None
    try:
        for line in open(path):
            if line.startswith("=== "):
                current = []
                samples.append(current)
            elif current is not None:
                current.append(line)
    except FileNotFoundError:
        pass
    return [disabled_ports(s) for s in samples]


def per_switch(ports, peer, cas):
    """Disabled links touching each switch, either end (the guard's max_disabled_per_switch)."""
    count = collections.Counter()
    for g, p in ports:
        ends = {g}
        if (g, p) in peer:
            ends.add(peer[(g, p)][0])
        for e in ends:
            if e not in cas:
                count[e] += 1
    return max(count.values(), default=0)


def guid(text):
    return int(text, 16) if text else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lab", required=True)
    ap.add_argument("--kills", type=int, required=True)
    ap.add_argument("--rotations", type=int, default=0)
    ap.add_argument("--aimed", type=int, default=0, help="kills aimed at an action in flight")
    ap.add_argument("--cap-total", type=int, required=True)
    ap.add_argument("--cap-switch", type=int, required=True)
    ap.add_argument("--cap-hour", type=int, required=True)
    a = ap.parse_args()
    lab = a.lab
    failures = []

    # 1. OpenSM lines stored exactly once.
    expected = collections.Counter()
    for line in open(f"{lab}/expected.tsv"):
        expected[tuple(line.rstrip("\n").split("\t", 2))] += 1
    stored = collections.Counter()
    for e in json.load(open(f"{lab}/events.json")):
        if e["source"] == "opensm" and e["kind"] in LOG_KINDS:
            message = re.sub(r"[\t\r\n]", " ", e["message"])
            stored[(e["time"], e["kind"], message)] += 1
    n_expected = sum(expected.values())
    n_stored = sum(min(stored[k], n) for k, n in expected.items())
    duplicated = sum(max(0, n - expected[k]) for k, n in stored.items())
    if n_stored != n_expected:
        missing = [k for k, n in expected.items() if stored[k] < n]
        failures.append(f"events: {n_expected - n_stored} of {n_expected} OpenSM events not stored, "
                        f"e.g. {missing[:3]}")
    if duplicated:
        extra = [k for k, n in stored.items() if n > expected[k]]
        failures.append(f"events: {duplicated} stored more than once or never logged, e.g. {extra[:3]}")

    # 2. Work orders: one per link.
    orders = json.load(open(f"{lab}/workorders.json"))
    per_link = collections.Counter()
    for o in orders:
        ends = sorted([o["a"], o["b"]])
        per_link[tuple(ends)] += 1
    orders_dup = sum(n - 1 for n in per_link.values() if n > 1)
    if orders_dup:
        failures.append(f"work orders: {orders_dup} duplicated: "
                        f"{[k for k, n in per_link.items() if n > 1][:3]}")

    # 3. Caps at every sample of the fabric, and per hour from the decisions.
    peer, cas = load_net(f"{lab}/net")
    samples = load_samples(f"{lab}/samples.txt")
    max_total = max((len(s) for s in samples), default=0)
    max_switch = max((per_switch(s, peer, cas) for s in samples), default=0)
    if max_total > a.cap_total:
        failures.append(f"caps: {max_total} ports disabled at once (max_disabled_total {a.cap_total})")
    if max_switch > a.cap_switch:
        failures.append(f"caps: {max_switch} disabled links on one switch "
                        f"(max_disabled_per_switch {a.cap_switch})")
    decisions = json.load(open(f"{lab}/decisions.json"))
    executed = [d for d in decisions if d["status"] == "executed"]
    disables = [d for d in executed if d["action"] == "disable"]
    if len(disables) > a.cap_hour:  # the storm lasts less than an hour
        failures.append(f"caps: {len(disables)} disables executed (max_actions_per_hour {a.cap_hour})")
    cut = [d for d in disables
           if guid(d["node_guid"]) in cas or peer.get((guid(d["node_guid"]), d["port"]), (0,))[0] in cas]
    if cut:
        failures.append(f"hard rule: {len(cut)} host links disabled, e.g. {cut[0]['node']}/{cut[0]['port']}")
    pending = [d for d in decisions if d["status"] == "pending"]
    if pending:
        failures.append(f"decisions: {len(pending)} still pending after a reconciling start")

    # 4. Disabled on the fabric <=> recorded (disabled_ports, and the last executed action).
    fabric = disabled_ports(open(f"{lab}/fabric.final"))
    db = sqlite3.connect(f"file:{lab}/ibwarden.db?mode=ro", uri=True)
    recorded = {(g & 0xFFFFFFFFFFFFFFFF, p) for g, p in db.execute("SELECT node_guid, port FROM disabled_ports")}
    last_action = {}
    for d in sorted(executed, key=lambda d: d["id"]):
        if d["action"] in ("disable", "enable"):
            last_action[(guid(d["node_guid"]), d["port"])] = d["action"]
    by_decision = {k for k, act in last_action.items() if act == "disable"}
    # A port disabled on the fabric without both records, plus a record claiming a port the
    # fabric does not have disabled.
    unrecorded = len(fabric - (recorded & by_decision)) + len((recorded | by_decision) - fabric)
    if fabric != recorded or fabric != by_decision:
        failures.append(f"disables: fabric {sorted(fabric)}, store {sorted(recorded)}, "
                        f"decisions {sorted(by_decision)}")

    # 5. Webhook: every revision of every order delivered (by idempotency key).
    outbox = {k for (k,) in db.execute("SELECT idempotency_key FROM outbox")}
    revisions = {f"{o['id']}-v{v}" for o in orders for v in range(1, o["version"] + 1)}
    got, copies = set(), 0
    for line in open(f"{lab}/webhook.jsonl"):
        r = json.loads(line)
        if not r.get("failed"):
            key = r["headers"].get("idempotency-key")
            copies += key in got
            got.add(key)
    lost = len((outbox | revisions) - got)
    if lost:
        failures.append(f"webhook: {lost} order revisions never delivered, e.g. "
                        f"{sorted((outbox | revisions) - got)[:5]}")

    reconciled = sum(open(f).read().count('"pending port action reconciled"')
                     for f in glob.glob(f"{lab}/daemon.log.*"))

    for f in failures:
        print(f"fault-storm: FAILED {f}")
    print(f"fault-storm: {a.aimed} of {a.kills} kills aimed at a port action in flight, "
          f"{a.rotations} log rotations, {len(samples)} fabric samples, "
          f"{len(disables)} disables executed, {reconciled} intents left pending (by a kill, or a "
          f"Set and read-back unanswered) and reconciled, {len(decisions)} decisions, {len(orders)} work orders, "
          f"{copies} webhook copies dropped by key, max {max_switch} disabled per switch "
          f"(cap {a.cap_switch})")
    print(f"kills {a.kills}, events expected {n_expected}/stored {n_stored}/duplicated {duplicated}, "
          f"orders duplicated {orders_dup}, max disabled {max_total} vs cap {a.cap_total}, "
          f"unrecorded disables {unrecorded}, webhook lost {lost}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

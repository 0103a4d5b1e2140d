#!/usr/bin/env python3
"""Flap trials for bench/bench_remedy.sh: for each trial, a leaf uplink not used before is
flapped on the ibsim console (Unlink, wait for its link_down in GET /api/v1/events, ReLink,
wait for its link_up) 4 times; the 5th flap, the one that crosses link_flap's 5 cycles
(Unlink, its link_down, ReLink), is timed from its Unlink until GET /api/v1/decisions shows
the executed link_flap disable of that link (either end). Depending on when the rules see the
5th cycle, the disable comes after the 5th link_down or the 5th link_up. Polls every 5 ms. Prints one line
per trial: "trial N LEAF/PORT SECONDS". Exit 1 (naming the wait) when something never shows.

usage: flap_trials.py --base URL --token T --console-fd FD --trials N --leaves L --spines S
                      --first-up PORT
"""
import argparse
import json
import os
import sys
import time
import urllib.request


class Api:
    def __init__(self, base, token):
        self.base, self.token = base, token
        self.cursor = {"events": 0, "decisions": 0}

    def get(self, path):
        req = urllib.request.Request(self.base + path,
                                     headers={"Authorization": "Bearer " + self.token})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)

    def skip_to_end(self, kind):
        """Moves the cursor of /events or /decisions past every record stored so far."""
        while True:
            body = self.get(f"/{kind}?since=0&limit=10000&after_id={self.cursor[kind]}")
            if body.get("last_id"):
                self.cursor[kind] = max(self.cursor[kind], int(body["last_id"]))
            if not body.get("more"):
                return

    def wait_for(self, kind, match, what, timeout=30.0):
        """Polls /kind after the cursor until a record satisfies match(record)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            body = self.get(f"/{kind}?since=0&limit=10000&after_id={self.cursor[kind]}")
            records = body.get(kind, [])
            for rec in records:
                if match(rec):
                    self.cursor[kind] = max(self.cursor[kind], int(rec["id"]))
                    return
            time.sleep(0.005)
        sys.exit(f"flap_trials: no {what} after {timeout:.0f} s")


def main():
    ap = argparse.ArgumentParser()
    for a in ("--base", "--token"):
        ap.add_argument(a, required=True)
    for a in ("--console-fd", "--trials", "--leaves", "--spines", "--first-up"):
        ap.add_argument(a, type=int, required=True)
    o = ap.parse_args()
    console = os.fdopen(o.console_fd, "w", buffering=1)
    api = Api(o.base, o.token)

    def send(cmd):
        console.write(cmd + "\n")
        console.flush()

    api.skip_to_end("events")
    nleaves = o.leaves - 1
    for i in range(o.trials):
        # A leaf other than leaf001 (the SM host hangs off it); uplinks spread over the spines.
        leaf = "leaf%03d" % (2 + i % nleaves)
        port = o.first_up + (i // nleaves * 5 + i) % o.spines

        def link(kind):
            return lambda e: (e.get("kind") == kind and e.get("node") == leaf
                              and e.get("port") == port)

        for _ in range(4):
            send(f'Unlink "{leaf}"[{port}]')
            api.wait_for("events", link("link_down"), f"link_down of {leaf}/{port}")
            send(f'ReLink "{leaf}"[{port}]')
            api.wait_for("events", link("link_up"), f"link_up of {leaf}/{port}")
        api.skip_to_end("decisions")
        t0 = time.monotonic()
        send(f'Unlink "{leaf}"[{port}]')
        api.wait_for("events", link("link_down"), f"link_down of {leaf}/{port}")

        def flap_decision(d):
            return d.get("rule") == "link_flap" and (
                (d.get("node") == leaf and d.get("port") == port)
                or (d.get("peer_node") == leaf and d.get("peer_port") == port))

        # The disable may already be under way (the 5th down completes 5 cycles): then the
        # cable stays out, since ibsim's ReLink would re-enable a just-disabled port.
        body = api.get(f"/decisions?since=0&limit=10000&after_id={api.cursor['decisions']}")
        if not any(flap_decision(d) for d in body.get("decisions", [])):
            send(f'ReLink "{leaf}"[{port}]')
        seen = {}

        def done(d):
            if flap_decision(d) and d.get("status") in ("executed", "failed"):
                seen["status"] = d["status"]
                return True
            return False

        api.wait_for("decisions", done, f"link_flap disable of {leaf}/{port}")
        elapsed = time.monotonic() - t0
        if seen["status"] != "executed":  # ReLink raced the Set: ibsim re-enabled the port
            print(f"lost {i + 1} {leaf}/{port} {elapsed:.3f} (disable read back up: ibsim "
                  "re-linked the port between the Set and its read-back)", flush=True)
            continue
        print(f"trial {i + 1} {leaf}/{port} {elapsed:.3f}", flush=True)
        api.skip_to_end("events")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Webhook receiver for ibwarden's integration tests (Python 3 stdlib only).

Usage: webhook_receiver.py --port 0 --out FILE --port-file PF [--fail-first N]
                           [--status-on-fail 500] [--fail-rate R --seed S --max-fail-run K]

Listens on 127.0.0.1:PORT (0 = any free port) and writes the bound port to PF (atomically:
a reader sees either no file or the whole number). Each POST is appended to FILE as one JSON
line, flushed at once:
  {"time": <unix seconds>, "headers": {"idempotency-key": ..., "authorization": ...,
   "x-ibwarden-delivery": ..., "content-type": ...}, "body": <parsed JSON, or the raw text if
   it is not JSON>}
Missing headers are null. Answers 200, except the first N requests (--fail-first), which get
--status-on-fail and are recorded with "failed": true. With --fail-rate R (0-1), every later
request fails with probability R (seeded by --seed), but never more than --max-fail-run in a
row (so a sender's retry backoff stays short; the fault harness uses 0.5 and 3). Requests are
served one at a time, in arrival order. Exits 0 on SIGTERM or SIGINT.
"""

import argparse
import http.server
import json
import os
import random
import signal
import sys
import time

RECORDED_HEADERS = ("idempotency-key", "authorization", "x-ibwarden-delivery", "content-type")


def make_handler(args, out):
    state = {"seen": 0, "run": 0}
    rng = random.Random(args.seed)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8", "replace")
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw
            state["seen"] += 1
            failed = state["seen"] <= args.fail_first
            if not failed and args.fail_rate > 0 and state["run"] < args.max_fail_run:
                failed = rng.random() < args.fail_rate
            state["run"] = state["run"] + 1 if failed else 0
            record = {
                "time": time.time(),
                "headers": {h: self.headers.get(h) for h in RECORDED_HEADERS},
                "body": body,
            }
            if failed:
                record["failed"] = True
            out.write(json.dumps(record) + "\n")
            out.flush()
            status = args.status_on_fail if failed else 200
            answer = b'{"ok":false}' if failed else b'{"ok":true}'
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(answer)
            self.close_connection = True

        def log_message(self, *_):  # quiet: the out file is the record
            pass

    return Handler


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--out", required=True, help="JSON lines file, appended to")
    p.add_argument("--port-file", required=True, help="receives the bound port")
    p.add_argument("--fail-first", type=int, default=0, metavar="N")
    p.add_argument("--status-on-fail", type=int, default=500)
    p.add_argument("--fail-rate", type=float, default=0.0, metavar="R")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-fail-run", type=int, default=3, metavar="K")
    args = p.parse_args()

    def stop(*_):
        sys.exit(0)  # raised in the main thread, ends serve_forever()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    with open(args.out, "a", encoding="utf-8") as out:
        server = http.server.HTTPServer(("127.0.0.1", args.port), make_handler(args, out))
        tmp = args.port_file + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(f"{server.server_address[1]}\n")
        os.replace(tmp, args.port_file)
        try:
            server.serve_forever()
        finally:
            server.server_close()


if __name__ == "__main__":
    main()

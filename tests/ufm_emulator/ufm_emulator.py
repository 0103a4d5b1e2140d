#!/usr/bin/env python3
"""UFM emulator for ibwarden's tests (Python 3 stdlib only). See README.md in this folder.

Usage: ufm_emulator.py [--port 0] [--port-file PF] [--bind 127.0.0.1]
                       [--topology IBNETDISCOVER | --plan PLAN.csv]
                       [--schema 6.16|6.17] [--tz-offset SECONDS]
                       [--user U] [--password P] [--token T]
                       [--backlog N] [--job-polls N]

Serves UFM's REST API under /ufmRest (HTTP Basic), /ufmRestV2 (session cookie from
POST /dologin) and /ufmRestV3 (header "Authorization: Basic <token>"), UFM Telemetry
(/csv/metrics, /metrics, /labels/metrics, /csv/xcset/<name>) without authentication, and a
control API under /emulator/ for tests. Writes the bound port to --port-file atomically.
Exits 0 on SIGTERM or SIGINT.
"""

import argparse
import http.server
import os
import signal
import sys
import threading

from fabric import default_fabric, load_ibnetdiscover, load_plan_csv
from state import Emulator, Reply


def make_handler(emu):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes

        def _body(self):
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _serve(self, method):
            body = self._body()
            reply = emu.handle(method, self.path, dict(self.headers.items()), body,
                               self.headers.get("Host", ""))
            if reply.drop:  # a "timeout": hold the request, then close without an answer
                self.close_connection = True
                return
            self.send_response(reply.status)
            for k, v in reply.headers:
                self.send_header(k, v)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            if method != "HEAD":
                self.wfile.write(reply.body)

        def do_GET(self):
            self._serve("GET")

        def do_POST(self):
            self._serve("POST")

        def do_PUT(self):
            self._serve("PUT")

        def do_DELETE(self):
            self._serve("DELETE")

        def log_message(self, *_):
            pass

    return Handler


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return  # the client went away (a test's timeout): nothing to report
        super().handle_error(request, client_address)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file")
    p.add_argument("--bind", default="127.0.0.1")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--topology", help="ibnetdiscover text (ibw-labgen --ibnetdiscover)")
    src.add_argument("--plan", help="plan CSV (ibw-labgen plan.csv)")
    p.add_argument("--schema", choices=["6.16", "6.17"], default="6.17",
                   help="event schema generation (6.16: type = event id; 6.17: event_type)")
    p.add_argument("--tz-offset", type=int, default=0, help="server-local time minus UTC, s")
    p.add_argument("--user", default="admin")
    p.add_argument("--password", default="123456")
    p.add_argument("--token", default="emulator-token-0123456789abcdef")
    p.add_argument("--backlog", type=int, default=0, help="events present at start")
    p.add_argument("--job-polls", type=int, default=1,
                   help="GET /jobs/<id> answers with Running before Completed")
    args = p.parse_args()

    if args.topology:
        with open(args.topology, encoding="utf-8") as f:
            fabric = load_ibnetdiscover(f.read())
    elif args.plan:
        with open(args.plan, encoding="utf-8") as f:
            fabric = load_plan_csv(f.read())
    else:
        fabric = default_fabric()
    emu = Emulator(fabric, args)
    if args.backlog:
        emu.add_backlog(args.backlog, 0.1)

    def stop(*_):
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server = Server((args.bind, args.port), make_handler(emu))
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("%d\n" % server.server_address[1])
        os.replace(tmp, args.port_file)
    try:
        server.serve_forever()
    finally:
        emu.stopping.set()
        server.server_close()


if __name__ == "__main__":
    threading.current_thread().name = "ufm-emulator"
    main()

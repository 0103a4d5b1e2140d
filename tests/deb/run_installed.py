#!/usr/bin/env python3
"""Runs the installed ibwarden as the unit would (user ibwarden, the shipped config, systemd's
notify protocol) and checks: READY=1 arrives; /metrics answers on the shipped web.listen; the
store appears under /var/lib/ibwarden owned by ibwarden; `ibwarden store backup` works as that
user; SIGHUP gives RELOADING=1 then READY=1; SIGTERM gives STOPPING=1 and exit 0.
Needs root (to run as ibwarden) and the package installed. Exit 0 ok, 1 failed, 77 skipped."""
import re
import os
import pwd
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

CONFIG = "/etc/ibwarden/ibwarden.yaml"
STORE = "/var/lib/ibwarden/ibwarden.db"


def main():
    try:
        probe = socket.socket()
        probe.bind(("127.0.0.1", 8080))
        probe.close()
    except OSError:
        print("skip: 127.0.0.1:8080 (the shipped web.listen) is in use here")
        return 77
    tmp = tempfile.mkdtemp(prefix="ibw-notify.")
    os.chmod(tmp, 0o755)
    path = os.path.join(tmp, "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    os.chmod(path, 0o777)
    sock.settimeout(0.5)
    log = open(os.path.join(tmp, "daemon.log"), "w+")
    as_service = dict(user="ibwarden", group="ibwarden", extra_groups=[], cwd="/")
    env = dict(os.environ, NOTIFY_SOCKET=path)
    daemon = subprocess.Popen(["/usr/bin/ibwarden", "run", "--config", CONFIG], env=env,
                              stdout=log, stderr=subprocess.STDOUT, **as_service)
    got = []
    failures = []

    def wait_for(word, seconds):
        until = time.time() + seconds
        while time.time() < until:
            try:
                msg = sock.recv(4096).decode()
            except socket.timeout:
                continue
            got.append(msg)
            if word in msg.split("\n"):
                return True
        return False

    def check(what, ok):
        print(("ok: " if ok else "FAIL: ") + what)
        if not ok:
            failures.append(what)

    try:
        check("READY=1 from the installed daemon as user ibwarden", wait_for("READY=1", 30))
        body = ""
        for _ in range(20):
            try:
                body = urllib.request.urlopen("http://127.0.0.1:8080/metrics", timeout=2).read().decode()
                break
            except OSError:
                time.sleep(0.25)
        check("GET /metrics on the shipped web.listen",
              re.search(r"^ibwarden_up(\{[^}]*\})? 1$", body, re.M) is not None)
        owner = pwd.getpwuid(os.stat(STORE).st_uid).pw_name if os.path.exists(STORE) else None
        check("store created under /var/lib/ibwarden, owned by ibwarden", owner == "ibwarden")
        backup = subprocess.run(
            ["/usr/bin/ibwarden", "store", "backup", "/var/lib/ibwarden/backup-test.db",
             "--config", CONFIG], capture_output=True, text=True, **as_service)
        print(backup.stdout.strip() or backup.stderr.strip())
        check("ibwarden store backup as user ibwarden", backup.returncode == 0)
        daemon.send_signal(signal.SIGHUP)
        check("SIGHUP: RELOADING=1", wait_for("RELOADING=1", 15))
        check("SIGHUP: READY=1 again", wait_for("READY=1", 15))
        daemon.send_signal(signal.SIGTERM)
        check("SIGTERM: STOPPING=1", wait_for("STOPPING=1", 15))
        check("exit status 0", daemon.wait(timeout=30) == 0)
    finally:
        if daemon.poll() is None:
            daemon.kill()
        log.seek(0)
        if failures:
            print("notify messages: %r" % got)
            print("daemon log:\n" + log.read()[-3000:])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Aimed kill of the fault harness: SIGKILLs the daemon while one of its port actions is in flight.

Usage: snipe.py DB PID TIMEOUT_S
Polls the store (read only, about every millisecond) for a decision of the daemon's rules
(rule != "manual": the CLI's intents are its own) stored as "pending", i.e. an intent whose
SMP request may be on the wire, and kills PID at once. A random kill rarely lands in that
window of a few milliseconds; these do. Exit 0 when it killed, 1 when nothing was pending
within TIMEOUT_S (the caller then kills at random).
"""

import os
import signal
import sqlite3
import sys
import time


def main():
    db, pid, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    end = time.monotonic() + timeout
    conn = None
    while time.monotonic() < end:
        try:
            if conn is None:
                conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05)
            row = conn.execute(
                "SELECT count(*) FROM decisions WHERE status = 'pending' AND rule != 'manual'"
            ).fetchone()
            if row and row[0]:
                os.kill(pid, signal.SIGKILL)
                return 0
        except sqlite3.Error:
            conn = None  # busy or not created yet
        except ProcessLookupError:
            return 1
        time.sleep(0.001)
    return 1


if __name__ == "__main__":
    sys.exit(main())

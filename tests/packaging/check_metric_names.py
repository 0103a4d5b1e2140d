#!/usr/bin/env python3
"""Every ibwarden_* metric the alert rules and the Grafana dashboard name must exist in a real
/metrics scrape (Python 3 stdlib only).

Names are taken from the whole text of each YAML rules file (expressions and annotations:
an annotation that tells the on-call to look at a metric must name a real one) and from the
`expr` of every target of each JSON dashboard. A name exists when the scrape has a
`# TYPE name ...` line for it (families are listed even with no sample, see web/metrics.h);
every TYPE must also have its HELP. A file that names no ibwarden_* metric at all is an error
too (the extraction would have silently found nothing).

Usage: check_metric_names.py (--scrape-command CMD | --scrape-file FILE) FILE...
  --scrape-command: runs CMD (tests/packaging/metrics_scrape.cpp) and reads the scrape from
  its stdout.
Exit status: 0 all found, 1 missing names or a bad scrape (listed on stderr), 2 usage.
"""
import json
import re
import subprocess
import sys

NAME = re.compile(r"\bibwarden_[a-z0-9_]+\b")
# Recording-rule and label names that look like metrics but are not scraped: none today.
NOT_SCRAPED = set()


def names_in_rules(text):
    return set(NAME.findall(text))


def names_in_dashboard(text):
    dash = json.loads(text)
    found = set()

    def walk(panels):
        for p in panels or []:
            for t in p.get("targets", []) or []:
                if isinstance(t, dict):
                    found.update(NAME.findall(t.get("expr", "") or ""))
            walk(p.get("panels"))

    walk(dash.get("panels"))
    for v in dash.get("templating", {}).get("list", []):  # e.g. label_values(ibwarden_up, ...)
        found.update(NAME.findall(v.get("definition", "") or ""))
    return found


def families(scrape):
    """(names with a TYPE line, problems of the exposition text)."""
    typed, helped, problems = {}, set(), []
    for n, line in enumerate(scrape.splitlines(), 1):
        if line.startswith("# TYPE "):
            parts = line.split()
            if len(parts) != 4:
                problems.append("scrape line %d: malformed TYPE: %s" % (n, line))
                continue
            typed[parts[2]] = parts[3]
        elif line.startswith("# HELP "):
            helped.add(line.split()[2])
        elif line and not line.startswith("#"):
            name = re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line)
            if not name or name.group(0) not in typed:
                problems.append("scrape line %d: a sample before its TYPE: %s" % (n, line))
    for name in typed:
        if name not in helped:
            problems.append("scrape: %s has a TYPE but no HELP" % name)
    return typed, problems


def main(argv):
    args = argv[1:]
    if len(args) < 3 or args[0] not in ("--scrape-command", "--scrape-file"):
        print(__doc__, file=sys.stderr)
        return 2
    if args[0] == "--scrape-command":
        r = subprocess.run([args[1]], capture_output=True, text=True)
        if r.returncode != 0:
            print("%s failed (%d): %s" % (args[1], r.returncode, r.stderr), file=sys.stderr)
            return 1
        scrape = r.stdout
    else:
        with open(args[1], encoding="utf-8") as f:
            scrape = f.read()
    typed, problems = families(scrape)
    if "ibwarden_up" not in typed:
        problems.append("the scrape has no ibwarden_up: not a /metrics answer?")
    checked = 0
    for path in args[2:]:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        used = names_in_dashboard(text) if path.endswith(".json") else names_in_rules(text)
        used -= NOT_SCRAPED
        if not used:
            problems.append("%s: names no ibwarden_* metric" % path)
        for name in sorted(used):
            checked += 1
            if name not in typed:
                problems.append("%s: %s is not in /metrics" % (path, name))
        print("%s: %d metrics, %s" % (path, len(used), " ".join(sorted(used))))
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print("all %d uses found among the %d families of the scrape" % (checked, len(typed)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

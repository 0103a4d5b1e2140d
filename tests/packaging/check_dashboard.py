#!/usr/bin/env python3
"""Lint of the Grafana dashboard packaging/grafana/ibwarden.json (Python 3 stdlib only).

Checks: valid JSON; the top-level fields Grafana needs to import it (title, uid, schemaVersion
>= 36, panels, templating, time); a datasource template variable DS_PROMETHEUS (type
datasource, query prometheus) and an `instance` query variable using it; unique panel ids
(rows and nested panels included); every panel but rows has a datasource naming
${DS_PROMETHEUS} and targets, each with a refId (unique in the panel), a datasource and a
non-empty expr whose ibwarden_* selectors filter on instance=~"$instance"; every panel has a
gridPos inside the 24-column grid, and no two overlap. With --promtool PATH, every expr is
also parsed by promtool (as a recording rule, $instance replaced by .*).

Usage: check_dashboard.py [--promtool PATH] DASHBOARD.json
       check_dashboard.py --self-test DASHBOARD.json   (the lint must catch broken copies)
Exit status: 0 clean, 1 problems (listed on stderr), 2 usage.
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

REQUIRED_TOP = {"title": str, "uid": str, "schemaVersion": int, "panels": list,
                "templating": dict, "time": dict}
DS_VARIABLE = "DS_PROMETHEUS"
DS_REF = "${" + DS_VARIABLE + "}"
# An ibwarden_* metric and its selector braces, if any.
SELECTOR = re.compile(r"\b(ibwarden_[a-z0-9_]+)\b(\{[^}]*\})?")


def all_panels(panels):
    """Every panel, rows' nested panels included, in order."""
    for p in panels:
        yield p
        for inner in p.get("panels", []) or []:
            yield inner


def datasource_ok(ds):
    return isinstance(ds, dict) and ds.get("uid") == DS_REF and ds.get("type") == "prometheus"


def check_templating(dash, problems):
    variables = {v.get("name"): v for v in dash.get("templating", {}).get("list", [])
                 if isinstance(v, dict)}
    ds = variables.get(DS_VARIABLE)
    if not ds or ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        problems.append("templating: no datasource variable %s (type datasource, query "
                        "prometheus)" % DS_VARIABLE)
    inst = variables.get("instance")
    if not inst or inst.get("type") != "query":
        problems.append("templating: no query variable `instance`")
    elif not datasource_ok(inst.get("datasource")):
        problems.append("templating: variable `instance` must use the datasource %s" % DS_REF)


def check_panel_queries(p, where, problems):
    if not datasource_ok(p.get("datasource")):
        problems.append("%s: datasource must be {type: prometheus, uid: %s}" % (where, DS_REF))
    targets = p.get("targets")
    if not isinstance(targets, list) or not targets:
        problems.append("%s: no targets" % where)
        return
    refs = set()
    for t in targets:
        ref = t.get("refId") if isinstance(t, dict) else None
        tw = "%s target %s" % (where, ref)
        if not ref:
            problems.append("%s: target without refId" % where)
        elif ref in refs:
            problems.append("%s: refId used twice" % tw)
        refs.add(ref)
        if not isinstance(t, dict):
            continue
        if not datasource_ok(t.get("datasource")):
            problems.append("%s: datasource must be %s" % (tw, DS_REF))
        expr = t.get("expr")
        if not isinstance(expr, str) or not expr.strip():
            problems.append("%s: no expr" % tw)
            continue
        for m in SELECTOR.finditer(expr):
            if 'instance=~"$instance"' not in (m.group(2) or ""):
                problems.append('%s: %s does not filter on instance=~"$instance"' %
                                (tw, m.group(1)))


def check_grid(panels, problems):
    boxes = []
    for p in panels:
        where = "panel %s (%s)" % (p.get("id"), p.get("title", ""))
        g = p.get("gridPos")
        if not isinstance(g, dict) or not all(isinstance(g.get(k), int) for k in "xywh"):
            problems.append("%s: gridPos must have integer x, y, w, h" % where)
            continue
        if g["x"] < 0 or g["y"] < 0 or g["w"] <= 0 or g["h"] <= 0 or g["x"] + g["w"] > 24:
            problems.append("%s: gridPos %s outside the 24-column grid" % (where, g))
            continue
        for other_where, o in boxes:
            if (g["x"] < o["x"] + o["w"] and o["x"] < g["x"] + g["w"] and
                    g["y"] < o["y"] + o["h"] and o["y"] < g["y"] + g["h"]):
                problems.append("%s overlaps %s" % (where, other_where))
        boxes.append((where, g))


def lint(dash):
    """Problems of a parsed dashboard, as strings (empty when clean)."""
    problems = []
    if not isinstance(dash, dict):
        return ["the dashboard is not a JSON object"]
    for field, kind in REQUIRED_TOP.items():
        if not isinstance(dash.get(field), kind) or dash.get(field) in ("", [], {}):
            problems.append("top level: %s missing or not a non-empty %s" % (field, kind.__name__))
    if isinstance(dash.get("schemaVersion"), int) and dash["schemaVersion"] < 36:
        problems.append("top level: schemaVersion %d < 36" % dash["schemaVersion"])
    if problems:
        return problems
    check_templating(dash, problems)
    panels = list(all_panels(dash["panels"]))
    ids = [p.get("id") for p in panels]
    for i in sorted({i for i in ids if ids.count(i) > 1}, key=str):
        problems.append("panel id %s used %d times" % (i, ids.count(i)))
    for p in panels:
        where = "panel %s (%s)" % (p.get("id"), p.get("title", ""))
        if not isinstance(p.get("id"), int):
            problems.append("%s: id must be an integer" % where)
        if not p.get("title"):
            problems.append("%s: no title" % where)
        if p.get("type") != "row":
            check_panel_queries(p, where, problems)
    # Nested panels of a collapsed row share the grid with the rest once it is expanded.
    check_grid(panels, problems)
    return problems


def exprs(dash):
    for p in all_panels(dash.get("panels", [])):
        for t in p.get("targets", []) or []:
            if isinstance(t, dict) and isinstance(t.get("expr"), str):
                yield p.get("id"), t.get("refId"), t["expr"]


def promtool_problems(dash, promtool):
    """Each expr parsed by `promtool check rules` as a recording rule."""
    rules = ["groups:", "  - name: dashboard", "    rules:"]
    for pid, ref, expr in exprs(dash):
        rules.append("      - record: dashboard:panel_%s_%s" % (pid, ref))
        rules.append("        expr: %s" % json.dumps(expr.replace("$instance", ".*")))
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        f.write("\n".join(rules) + "\n")
    try:
        r = subprocess.run([promtool, "check", "rules", f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        return ["promtool: an expr does not parse:\n" + r.stdout + r.stderr]
    return []


def self_test(dash):
    """The lint must find each deliberate breakage of a clean dashboard."""
    if lint(dash):
        return ["self-test: the dashboard itself is not clean"]
    graph = [i for i, p in enumerate(dash["panels"]) if p.get("type") != "row"]
    a, b = graph[0], graph[1]

    def broken(change):
        d = copy.deepcopy(dash)
        change(d)
        return d

    cases = {
        "schemaVersion 30": lambda d: d.update(schemaVersion=30),
        "no uid": lambda d: d.pop("uid"),
        "no panels": lambda d: d.update(panels=[]),
        "no datasource variable": lambda d: d["templating"].update(list=[]),
        "a duplicate panel id": lambda d: d["panels"][b].update(id=d["panels"][a]["id"]),
        "a panel without datasource": lambda d: d["panels"][a].pop("datasource"),
        "a panel without targets": lambda d: d["panels"][a].update(targets=[]),
        "a target without expr": lambda d: d["panels"][a]["targets"][0].update(expr=""),
        "a query without the instance filter":
            lambda d: d["panels"][a]["targets"][0].update(expr="ibwarden_up"),
        "a panel without gridPos": lambda d: d["panels"][a].pop("gridPos"),
        "overlapping panels":
            lambda d: d["panels"][b].update(gridPos=dict(d["panels"][a]["gridPos"])),
        "a panel past the grid's edge":
            lambda d: d["panels"][a]["gridPos"].update(x=20, w=8),
    }
    misses = []
    for name, change in cases.items():
        if not lint(broken(change)):
            misses.append("self-test: the lint misses %s" % name)
    return misses


def main(argv):
    args = argv[1:]
    promtool = None
    mode = "lint"
    if args[:1] == ["--self-test"]:
        mode, args = "self-test", args[1:]
    if args[:1] == ["--promtool"] and len(args) >= 2:
        promtool, args = args[1], args[2:]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as f:
            dash = json.load(f)
    except (OSError, ValueError) as e:
        print("%s: %s" % (args[0], e), file=sys.stderr)
        return 1
    if mode == "self-test":
        problems = self_test(dash)
    else:
        problems = lint(dash)
        if not problems and promtool:
            problems = promtool_problems(dash, promtool)
    for p in problems:
        print("%s: %s" % (args[0], p), file=sys.stderr)
    if problems:
        return 1
    n = sum(1 for p in all_panels(dash["panels"]) if p.get("type") != "row")
    print("%s: %s (%d panels, %d queries)" %
          (args[0], "the lint catches every breakage" if mode == "self-test" else "clean",
           n, sum(1 for _ in exprs(dash))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

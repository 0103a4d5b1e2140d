"""UFM events and alarms of the emulator: templates per event type, and rendering in the two
schema generations of GET /app/events (../shared/reference/ufm-api.md §3.1).

An event is kept internally as a dict with: id, type (int), name, severity, category,
object_type, object_name, object_path, description, time (UTC epoch seconds, float).
"""

import time

from fabric import HOST, path_of

LEGACY, CURRENT = "6.16", "6.17"

# type -> (name, severity, category). Names of 66, 67, 352, 901 are from the REST docs;
# 110-121, 328, 329, 702, 917, 918, 1500-1503 from public code (IMB) and the SDN appliance
# event list; severities and categories other than the docs' examples are guesses.
TYPES = {
    66: ("New MCast Group Created", "Info", "Fabric Notification"),
    67: ("MCast Group Deleted", "Info", "Fabric Notification"),
    110: ("Symbol Error Counter Rate", "Minor", "Communication Error"),
    111: ("Link Error Recovery Counter Rate", "Minor", "Communication Error"),
    112: ("Link Downed Counter Rate", "Minor", "Communication Error"),
    113: ("Port Receive Errors", "Minor", "Communication Error"),
    114: ("Port Receive Remote Physical Errors", "Minor", "Communication Error"),
    115: ("Receive Switch Relay Errors", "Minor", "Communication Error"),
    116: ("Port Xmit Discards", "Minor", "Communication Error"),
    117: ("Port Xmit Constraint Errors", "Minor", "Communication Error"),
    118: ("Port Receive Constraint Errors", "Minor", "Communication Error"),
    119: ("Local Link Integrity Errors", "Minor", "Communication Error"),
    120: ("Excessive Buffer Overrun Errors", "Minor", "Communication Error"),
    121: ("VL15 Dropped", "Minor", "Communication Error"),
    130: ("Non-optimal link width", "Warning", "Hardware"),
    328: ("Link is up", "Info", "Fabric Topology"),
    329: ("Link went down", "Warning", "Fabric Topology"),
    336: ("Port action disable succeeded", "Info", "Fabric Notification"),
    337: ("Port action enable succeeded", "Info", "Fabric Notification"),
    352: ("Network Added", "Info", "Logical Model"),
    551: ("External Event", "Info", "Fabric Notification"),
    552: ("External Event", "Info", "Fabric Notification"),
    553: ("External Event", "Warning", "Fabric Notification"),
    554: ("External Event", "Critical", "Fabric Notification"),
    394: ("Module status FAULT", "Critical", "Hardware"),
    702: ("Port is considered unhealthy", "Warning", "Fabric Notification"),
    901: ("Fabric Configuration Started", "Info", "Fabric Notification"),
    917: ("Symbol bit error rate", "Critical", "Communication Error"),
    918: ("Symbol bit error rate warning", "Warning", "Communication Error"),
    1500: ("New cable detected", "Info", "Hardware"),
    1502: ("Cable detected in a new location", "Warning", "Hardware"),
    1503: ("Duplicate cable detected", "Warning", "Hardware"),
}


def end_text(p):
    """"(Switch:leaf001:3)b83fd20300000001:3", the link-end form of IMB's 329 example."""
    s = p.system
    return "(%s:%s:%s)%016x:%d" % (s.type_word, s.name, p.dname, s.guid, p.number)


def cable_sn(p, q):
    a, b = sorted([(p.system.guid, p.number), (q.system.guid, q.number)])
    return "MT%04d%06d" % (a[1] + b[1], (a[0] ^ b[0]) % 1000000)


def make(type_, port=None, peer=None, when=None, **over):
    """An internal event of `type_` about `port` (a fabric.Port; its peer by default)."""
    name, severity, category = TYPES.get(type_, ("UFM Event %d" % type_, "Info", "Fabric Notification"))
    peer = peer if peer is not None else (port.peer if port is not None else None)
    ev = {"type": type_, "name": name, "severity": severity, "category": category,
          "object_type": "Site", "object_name": "default", "object_path": "default(2)",
          "description": name, "time": time.time() if when is None else when}
    if port is not None:
        ev.update({"object_type": "Port", "object_name": port.name, "object_path": path_of(port)})
    if type_ in (328, 329) and port is not None and peer is not None:
        verb = "Link went down" if type_ == 329 else "Link is up"
        ev["object_type"] = "Link"
        ev["description"] = "%s: %s - %s, cable S/N: %s" % (verb, end_text(port), end_text(peer),
                                                            cable_sn(port, peer))
    elif type_ == 702 and peer is not None:
        ev["description"] = "Peer Port %s:%s is considered by SM as unhealthy due to %s." % (
            peer.system.name, peer.dname, over.pop("reason", "FLAPPING"))
    elif 110 <= type_ <= 121:
        ev["description"] = "%s: counter rate %d exceeds threshold %d" % (
            name, over.pop("value", 250), over.pop("threshold", 200))
    elif type_ in (917, 918):
        ev["description"] = "%s: %.1e exceeds threshold %.0e" % (
            name, over.pop("ber", 2.1e-11), 1e-12 if type_ == 917 else 1e-13)
    elif type_ == 130 and port is not None:
        ev["description"] = "Link width is 1x, expected %s" % port.width
    elif type_ in (1500, 1502, 1503) and port is not None:
        ev["description"] = "%s: S/N %s on %s" % (name, cable_sn(port, peer or port),
                                                  end_text(port))
    elif type_ == 66:
        ev["description"] = "New MCast group is created: ff12601bffff0000, 1fffc6ec2"
    elif type_ == 67:
        ev["description"] = "Mcast group is deleted: ff12601bffff0000, 1fffc6ec2"
    over.pop("reason", None)
    ev.update({k: v for k, v in over.items() if k in ev})
    return ev


KINDS = {"link_down": 329, "link_up": 328, "unhealthy": 702, "ber": 917, "ber_warning": 918,
         "width": 130, "cable": 1500, "mcast": 66}


def local_stamp(t, tz_offset, schema):
    """Server-local time without a zone: "YYYY-MM-DD HH:MM:SS[.mmm]" (ms only before 6.17)."""
    local = t + tz_offset
    text = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(local))
    if schema == LEGACY:
        text += ".%03d" % int(round((local - int(local)) * 1000) % 1000)
    return text


def render(ev, schema, tz_offset):
    ts = local_stamp(ev["time"], tz_offset, schema)
    if schema == LEGACY:  # key order of the 6.12 docs' example (id last)
        return {"category": ev["category"], "severity": ev["severity"], "timestamp": ts,
                "counter": None, "object_name": ev["object_name"], "object_path": ev["object_path"],
                "name": ev["name"], "write_to_syslog": False, "type": str(ev["type"]),
                "id": ev["id"], "description": ev["description"]}
    return {"id": ev["id"], "name": ev["name"], "type": ev["object_type"],
            "event_type": str(ev["type"]), "severity": ev["severity"], "timestamp": ts,
            "counter": "N/A", "category": ev["category"], "object_name": ev["object_name"],
            "object_path": ev["object_path"], "write_to_syslog": False,
            "description": ev["description"]}


def backlog(fabric, n, end_time, spacing_s):
    """n events ending at end_time, spacing_s apart, cycling through link-down/up pairs,
    counter thresholds, BER warnings and multicast notices over the fabric's links."""
    links = fabric.links
    pattern = [329, 328, 110, 66, 67, 918, 113, 702, 328, 116]
    out = []
    for i in range(n):
        a, b = links[i % len(links)] if links else (None, None)
        t = pattern[i % len(pattern)]
        port = a if t not in (66, 67) else None
        if port is not None and port.system.kind == HOST and b is not None:
            port, b = b, port  # report from the switch side
        out.append(make(t, port, b if port is not None else None,
                        when=end_time - (n - 1 - i) * spacing_s))
    return out


def alarm_of(ev, alarm_id, count):
    """An alarm (§3.2 shape) for events that are not Info. The caller sets its timestamp
    (server-local, like events) as occurrences arrive."""
    return {"id": alarm_id, "name": ev["name"], "summary": ev["name"], "event_type": ev["type"],
            "type": ev["type"], "severity": ev["severity"], "reason": ev["description"],
            "event_count": count, "duration": 0, "related_object_name": ev["object_name"],
            "related_object_path": ev["object_path"], "counter": "N/A"}

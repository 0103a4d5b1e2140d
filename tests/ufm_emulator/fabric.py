"""The emulated fabric: systems, ports and links, read from ibnetdiscover text or a plan CSV
(what tests/lab/ibw-labgen writes), and rendered in the shapes of UFM's REST API.

Shapes follow ../shared/reference/ufm-api.md §3.3 (ports), §3.4 (links), §3.5 (systems);
the README of this folder lists which fields are documented and which are guesses.
"""

import csv
import re

SWITCH, HOST = "switch", "host"

_NODE = re.compile(r'^(Switch|Ca)\s+(\d+)\s+"([SH])-([0-9a-fA-F]+)"\s*#\s*"([^"]*)"(.*)$')
_PORT = re.compile(  # "[17][ext 9](guid)  "S-<guid>"[33][ext 1](guid)  # comment"
    r'^\[(\d+)\](?:\[ext \d+\])?(?:\(([0-9a-fA-F]+)\))?\s+"([SH])-([0-9a-fA-F]+)"\[(\d+)\]'
    r'(?:\[ext \d+\])?(?:\(([0-9a-fA-F]+)\))?\s*(?:#\s*(.*))?$')
_RATE = re.compile(r"(\d+)x(\w+)\s*$")
_LID = re.compile(r"\blid (\d+)")


def guid_hex(guid):
    return "%016x" % guid


def port_name(guid, num):
    return "%s_%d" % (guid_hex(guid), num)


class Port:
    def __init__(self, system, number):
        self.system = system
        self.number = number
        self.peer = None  # Port
        self.width = "4x"
        self.speed = "HDR"
        self.disabled = False
        self.high_ber = "N/A"
        self.logical_override = None  # control: UFM's logical_state regardless of the link
        self.physical_override = None  # control: physical_state likewise

    @property
    def name(self):
        return port_name(self.system.guid, self.number)

    @property
    def dname(self):
        return str(self.number)

    def up(self):
        return self.peer is not None and not self.disabled and not self.peer.disabled

    def spec(self):
        return "%s/%d" % (self.system.name, self.number)


class System:
    def __init__(self, guid, name, kind, lid=0):
        self.guid = guid
        self.name = name  # node description for hosts ("node0001 mlx5_0")
        self.kind = kind
        self.lid = lid
        self.ports = {}  # number -> Port

    def port(self, number):
        if number not in self.ports:
            self.ports[number] = Port(self, number)
        return self.ports[number]

    @property
    def system_name(self):
        return self.name.split(" ")[0] if self.kind == HOST else self.name

    @property
    def type_word(self):  # as in event descriptions and object paths
        return "Switch" if self.kind == SWITCH else "Computer"


class Fabric:
    def __init__(self):
        self.systems = {}  # guid -> System
        self.links = []  # (Port, Port), each once

    def system(self, guid, name, kind, lid=0):
        s = self.systems.get(guid)
        if s is None:
            s = self.systems[guid] = System(guid, name, kind, lid)
        if name and not s.name:  # first seen as a peer, now its own block
            s.name = name
        if lid and not s.lid:
            s.lid = lid
        return s

    def connect(self, a, b):
        if a.peer is b:
            return
        a.peer, b.peer = b, a
        self.links.append((a, b))

    def find_port(self, spec):
        """"leaf001/3", "node0001 mlx5_0/1", "<guid>_<num>" or "0x<guid>/<num>"."""
        try:
            if "_" in spec and "/" not in spec:
                g, _, n = spec.rpartition("_")
                s = self.systems.get(int(g, 16))
                return s.ports.get(int(n)) if s else None
            node, _, num = spec.rpartition("/")
            for s in self.systems.values():
                if node in (s.name, s.system_name, "0x" + guid_hex(s.guid)):
                    return s.ports.get(int(num))
        except ValueError:
            pass
        return None

    def all_ports(self):
        for s in sorted(self.systems.values(), key=lambda s: (s.kind != SWITCH, s.name)):
            for n in sorted(s.ports):
                yield s.ports[n]


def load_ibnetdiscover(text):
    f = Fabric()
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        m = _NODE.match(line)
        if m:
            kind = SWITCH if m.group(1) == "Switch" else HOST
            lid = _LID.search(m.group(6))
            current = f.system(int(m.group(4), 16), m.group(5), kind, int(lid.group(1)) if lid else 0)
            continue
        m = _PORT.match(line)
        if m and current is not None:
            local = current.port(int(m.group(1)))
            peer_kind = SWITCH if m.group(3) == "S" else HOST
            peer_sys = f.system(int(m.group(4), 16), "", peer_kind)
            peer = peer_sys.port(int(m.group(5)))
            rate = _RATE.search(m.group(7) or "")
            if rate:
                local.width = peer.width = rate.group(1) + "x"
                local.speed = peer.speed = rate.group(2)
            if current.kind == HOST:
                lid = _LID.search(m.group(7) or "")
                if lid and not current.lid:
                    current.lid = int(lid.group(1))
            f.connect(local, peer)
    for s in f.systems.values():  # peers first seen before their own block
        if not s.name:
            s.name = "0x" + guid_hex(s.guid)
    return f


def load_plan_csv(text):
    f = Fabric()
    rows = list(csv.DictReader(text.lstrip("\ufeff").splitlines()))
    names = sorted({r["a_node"] for r in rows} | {r["b_node"] for r in rows})
    counters = {SWITCH: 0, HOST: 0}
    guids = {}
    for n in names:
        kind = HOST if " " in n or n.startswith("node") else SWITCH
        counters[kind] += 1
        base = 0xB83FD20300000000 if kind == SWITCH else 0x0C42A10300000000
        guids[n] = (base + 2 * counters[kind], kind)
    for lid, n in enumerate(names, start=1):
        f.system(guids[n][0], n, guids[n][1], lid)
    for r in rows:
        a = f.systems[guids[r["a_node"]][0]].port(int(r["a_port"]))
        b = f.systems[guids[r["b_node"]][0]].port(int(r["b_port"]))
        for p in (a, b):
            if r.get("speed"):
                p.speed = r["speed"]
            if r.get("width"):
                p.width = r["width"].rstrip("xX") + "x"
        f.connect(a, b)
    return f


def default_fabric():
    """2 leaves, 2 spines, 2 hosts per leaf (the shape of the lab's smallest fat tree)."""
    lines = ["cable_id,a_node,a_port,b_node,b_port"]
    h = 0
    for leaf in (1, 2):
        for i in (1, 2):
            h += 1
            lines.append("C%d-%d,leaf%03d,%d,node%04d mlx5_0,1" % (leaf, i, leaf, i, h))
        for spine in (1, 2):
            lines.append("C%d-s%d,leaf%03d,%d,spine%03d,%d" % (leaf, spine, leaf, 2 + spine,
                                                              spine, leaf))
    return load_plan_csv("\n".join(lines) + "\n")


def path_of(port):
    return "default(1) / %s: %s / %s" % (port.system.type_word, port.system.system_name, port.dname)


def render_port(p, unhealthy=False):
    s = p.system
    up = p.up()
    peer = p.peer
    physical = "Disabled" if p.disabled else ("Link Up" if up else "Polling")
    rec = {
        "description": "Switch IB Port" if s.kind == SWITCH else "Computer IB Port",
        "number": p.number,
        "external_number": p.number,
        "physical_state": p.physical_override or physical,
        "path": path_of(p),
        "tier": 2 if s.kind == SWITCH else 1,
        "high_ber_severity": p.high_ber,
        "lid": s.lid,
        "mirror": "disable",
        "logical_state": p.logical_override or ("Active" if up else "Down"),
        "capabilities": ["reset", "healthy_operations", "disable", "get_cables_info"],
        "mtu": 4096,
        "peer_port_dname": peer.dname if (peer and up) else "N/A",
        "severity": "Warning" if unhealthy else "Info",
        "active_speed": p.speed if up else None,
        "enabled_speed": [p.speed],
        "supported_speed": [p.speed],
        "active_width": p.width if up else None,
        "enabled_width": [p.width],
        "supported_width": [p.width],
        "dname": p.dname,
        "guid": guid_hex(s.guid),
        "name": p.name,
        "systemID": guid_hex(s.guid),
        "system_name": s.system_name,
        "node_description": ("%s:%s" % (s.name, p.dname)) if s.kind == SWITCH else s.name,
    }
    if peer is not None and up:
        rec.update({
            "peer": peer.name,
            "peer_guid": guid_hex(peer.system.guid),
            "peer_node_name": peer.system.system_name,
            "peer_node_description": peer.system.name,
        })
    else:
        rec.update({"peer": "N/A", "peer_node_name": "N/A", "peer_node_description": "N/A"})
    return rec


def render_link(a, b):
    def end(prefix, p):
        return {
            prefix + "_guid": guid_hex(p.system.guid),
            prefix + "_port": str(p.number),
            prefix + "_port_dname": p.dname,
            prefix + "_port_name": p.name,
            prefix + "_port_node_description": p.system.name,
        }

    rec = {"name": "%s:%s" % (a.name, b.name), "width": a.width, "severity": "Info",
           "capabilities": ["collect_system_dump"]}
    rec.update(end("source", a))
    rec.update(end("destination", b))
    return rec


def render_system(s):
    return {
        "system_guid": guid_hex(s.guid),
        "guid": guid_hex(s.guid),
        "system_name": s.system_name,
        "name": s.system_name,
        "type": s.kind,
        "model": "QM8700" if s.kind == SWITCH else "ConnectX-6",
        "vendor": "Mellanox",
        "ip": "0.0.0.0",
        "severity": "Info",
        "state": "active",
        "technology": "HDR",
        "capabilities": ["reboot", "sw_upgrade"] if s.kind == SWITCH else [],
        "ports": [s.ports[n].name for n in sorted(s.ports)],
    }

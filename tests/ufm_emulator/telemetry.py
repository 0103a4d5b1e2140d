"""UFM Telemetry endpoints of the emulator (../shared/reference/ufm-api.md §5).

Primary (high-frequency) counters as CSV (/csv/metrics, /labels/csv/metrics) and Prometheus
text (/metrics, /labels/metrics); secondary (low-frequency) PHY/BER fields as CSV
(/csv/xcset/<any name>). Only ports whose link is up are listed. Values are whatever the
control endpoint set (POST /emulator/telemetry), 0 (counters) or healthy defaults (BER).
"""

import json
import time

# Our counter names (the IBA names ibwarden uses) -> primary telemetry names [H: D-TEL/TFS].
PRIMARY = [
    ("SymbolErrorCounter", "Infiniband_SymbolErrors"),
    ("LinkErrorRecoveryCounter", "Infiniband_LinkRecovers"),
    ("LinkDownedCounter", "Infiniband_LinkDowned"),
    ("PortRcvErrors", "Infiniband_RcvErrors"),
    ("PortRcvRemotePhysicalErrors", "Infiniband_RcvRemotePhysErrors"),
    ("PortRcvSwitchRelayErrors", "Infiniband_RcvSwRelayErrors"),
    ("PortXmitDiscards", "Infiniband_XmtDiscards"),
    ("PortXmitConstraintErrors", "Infiniband_XmtConstraintErrors"),
    ("PortRcvConstraintErrors", "Infiniband_RcvConstraintErrors"),
    ("LocalLinkIntegrityErrors", "Infiniband_LinkIntegrityErrors"),
    ("ExcessiveBufferOverrunErrors", "Infiniband_ExcBufOverrunErrors"),
    ("VL15Dropped", "Infiniband_VL15Dropped"),
    ("PortXmitWait", "Infiniband_XmitWait"),
    ("PortXmitPkts", "Infiniband_PckOut"),
    ("PortRcvPkts", "Infiniband_PckIn"),
    (None, "Infiniband_MBOut"),
    (None, "Infiniband_MBIn"),
]
# Secondary fields [H: D-TEL field names].
SECONDARY = ["Link_Down", "Total_Raw_BER", "Effective_BER", "Symbol_BER", "Effective_Errors",
             "Symbol_Errors", "Raw_Errors_Lane_0", "Raw_Errors_Lane_1", "Raw_Errors_Lane_2",
             "Raw_Errors_Lane_3", "Module_Temperature", "Active_FEC", "Link_speed_active",
             "Link_width_active", "link_partner_node_guid", "link_partner_port_num"]
PHY_DEFAULTS = {"Link_Down": 0, "Total_Raw_BER": 1e-15, "Effective_BER": 1e-20,
                "Symbol_BER": 1e-20, "Effective_Errors": 0, "Symbol_Errors": 0,
                "Raw_Errors_Lane_0": 0, "Raw_Errors_Lane_1": 0, "Raw_Errors_Lane_2": 0,
                "Raw_Errors_Lane_3": 0, "Module_Temperature": 45, "Active_FEC": "RS_FEC"}


class Telemetry:
    def __init__(self, fabric):
        self.fabric = fabric
        self.counters = {}  # port name -> {telemetry name: value}
        self.phy = {}  # port name -> {field: value}

    def control(self, body):
        from state import error, js  # late import: state imports this module

        p = self.fabric.find_port(str(body.get("port", "")))
        if p is None:
            return error(400, "unknown port")
        names = dict(PRIMARY)
        c = self.counters.setdefault(p.name, {})
        for k, v in (body.get("counters") or {}).items():
            c[names.get(k, k)] = v
        for k, v in (body.get("add") or {}).items():
            k = names.get(k, k)
            c[k] = c.get(k, 0) + v
        self.phy.setdefault(p.name, {}).update(body.get("phy") or {})
        return js({"port": p.name, "counters": c, "phy": self.phy[p.name]})

    def _ports(self):
        return [p for p in self.fabric.all_ports() if p.up()]

    def serve(self, path):
        from state import Reply

        now_us = int(time.time() * 1e6)
        if path.startswith("/csv/xcset/"):
            return Reply(200, self.secondary_csv(now_us).encode(), "text/csv")
        if path in ("/metrics", "/labels/metrics"):
            return Reply(200, self.prometheus(now_us).encode(), "text/plain; version=0.0.4")
        return Reply(200, self.primary_csv(now_us).encode(), "text/csv")

    def primary_csv(self, now_us):
        head = ["timestamp", "source_id", "tag", "node_guid", "port_guid", "port_num"]
        lines = [",".join(head + [t for _, t in PRIMARY])]
        for p in self._ports():
            g = "0x%016x" % p.system.guid
            c = self.counters.get(p.name, {})
            row = [str(now_us), g, "", g, g, str(p.number)]
            lines.append(",".join(row + [str(c.get(t, 0)) for _, t in PRIMARY]))
        return "\n".join(lines) + "\n"

    def prometheus(self, now_us):
        out = []
        ports = self._ports()
        for _, t in PRIMARY:
            out.append("# HELP %s %s" % (t, t))
            out.append("# TYPE %s counter" % t)
            for p in ports:
                g = "0x%016x" % p.system.guid
                labels = 'node_guid="%s",port_guid="%s",port_num="%d",node_description=%s' % (
                    g, g, p.number, json.dumps(p.system.name))
                out.append("%s{%s} %s %d" % (t, labels, self.counters.get(p.name, {}).get(t, 0),
                                             now_us // 1000))
        return "\n".join(out) + "\n"

    def secondary_csv(self, now_us):
        head = ["timestamp", "source_id", "tag", "Node_GUID", "port_guid", "Port_Number",
                "node_description"]
        lines = [",".join(head + SECONDARY)]
        for p in self._ports():
            g = "0x%016x" % p.system.guid
            v = dict(PHY_DEFAULTS)
            v.update({"Link_speed_active": p.speed, "Link_width_active": p.width,
                      "link_partner_node_guid": "0x%016x" % p.peer.system.guid,
                      "link_partner_port_num": p.peer.number})
            v.update(self.phy.get(p.name, {}))
            desc = '"%s"' % p.system.name.replace('"', '""')
            row = [str(now_us), g, "", g, g, str(p.number), desc]
            lines.append(",".join(row + [str(v.get(f, "")) for f in SECONDARY]))
        return "\n".join(lines) + "\n"

// feed.js: the live feed. Events from the stream (and the last half hour from /events) are
// grouped: a burst (each event within kBurstGapMs of the previous one, whatever its source)
// of kStormSize or more events shows as one "storm" line with counts per source and kind,
// expandable, so a UFM restart or a leaf reboot does not push everything else off the page.
// A group keeps its counts and at most kKeepItems events (the first ones and the last), so a
// port flapping for hours costs constant memory. Decisions and work-order changes are single
// lines.
import { byId } from './api.js';
import { badge, clock, h, portLink, replace } from './ui.js';

const kBurstGapMs = 1000;
const kStormSize = 10;
const kMaxGroups = 300;
const kKeepItems = 100;

export class Feed {
  constructor() {
    // newest last: {kind: 'events'|'decision'|'workorder', items: [...]}; an events group also
    // has count, counts (Map "source kind" -> n), nodes (Set), last (the newest event).
    this.groups = [];
    this.open = new Set();  // storms the user expanded, by their first event's id
    this.state = 'connecting';
    this.views = new Set();
    this.loaded = false;
    this.lastEventId = 0;
  }

  // After a reconnect: read the history again (events missed while away fill in by id).
  reload() {
    this.loaded = false;
    if (this.views.size) this.load().catch((e) => { this.loadError = e.message; this.render(); });
  }

  // Fills the feed with recent history once (the stream only sends what is new): the newest
  // 3,000 events of the last half hour.
  async load() {
    if (this.loaded) return;
    this.loaded = true;
    const { items: recent, truncated } =
      await byId('/events?since=30m&limit=2000', 'events', { keep: 3000 });
    this.truncated = truncated;
    const live = this.groups;  // what the stream brought while this loaded
    this.groups = [];
    this.lastEventId = 0;
    for (const e of recent) this.addEvent(e);
    for (const g of live) {
      if (g.kind !== 'events') this.add(g.kind, g.items[0], true);
      else for (const it of g.items) this.addEvent(it);
    }
    this.render();
  }

  setState(s) { this.state = s; this.render(); }

  add(type, data, quiet) {
    if (type === 'event') this.addEvent(data);
    else if (type === 'decision' || type === 'workorder') this.groups.push({ kind: type, items: [data] });
    else return;
    if (this.groups.length > kMaxGroups) this.groups.splice(0, this.groups.length - kMaxGroups);
    if (!quiet) this.render();
  }

  addEvent(e) {
    if (e.id <= this.lastEventId) return;
    this.lastEventId = e.id;
    // The newest events group, looking past a few decision/order lines that the stream may
    // deliver in the middle of a burst.
    let g = null;
    for (let i = this.groups.length - 1; i >= 0 && i >= this.groups.length - 4; --i)
      if (this.groups[i].kind === 'events') { g = this.groups[i]; break; }
    if (!(g && Math.abs(Date.parse(e.time) - Date.parse(g.last.time)) <= kBurstGapMs)) {
      g = { kind: 'events', items: [], count: 0, counts: new Map(), nodes: new Set() };
      this.groups.push(g);
    }
    g.count += 1;
    const key = `${e.source} ${e.kind}`;
    g.counts.set(key, (g.counts.get(key) || 0) + 1);
    if (e.node && g.nodes.size < 100000) g.nodes.add(e.node);
    g.last = e;
    if (g.items.length < kKeepItems) g.items.push(e);
  }

  // Shows the feed in `el` until the element leaves the page.
  mount(el) {
    this.views.add(el);
    this.render();
    this.load().catch((e) => { this.loadError = e.message; this.render(); });
  }

  render() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      for (const el of [...this.views]) {
        if (!el.isConnected) { this.views.delete(el); continue; }
        replace(el, this.renderInto());
      }
    });
  }

  renderInto() {
    const rows = [];
    const status = h('p', { class: 'dim' }, `feed: ${this.state}`,
      this.loadError ? ` (history: ${this.loadError})` : '',
      this.truncated ? ' (history: only the newest 3,000 events of the last 30 minutes)' : '');
    for (let i = this.groups.length - 1; i >= 0 && rows.length < 200; --i) {
      const g = this.groups[i];
      if (g.kind === 'decision') rows.push(decisionRow(g.items[0]));
      else if (g.kind === 'workorder') rows.push(orderRow(g.items[0]));
      else if (g.count >= kStormSize) rows.push(stormRow(g, this.open));
      else for (let j = g.items.length - 1; j >= 0; --j) rows.push(eventRow(g.items[j]));
    }
    return [status, h('div', { class: 'feed', 'data-testid': 'feed' },
      rows.length ? rows : h('p', { class: 'empty' }, 'no events in the last 30 minutes'))];
  }
}

function eventRow(e) {
  return h('div', { class: 'item', 'data-testid': 'feed-event' },
    h('span', { class: 't', title: e.time }, clock(e.time)),
    badge(e.severity),
    h('span', {}, h('b', {}, e.kind), ' ', portLink(e.node, e.port),
      e.peer_node ? [' ↔ ', portLink(e.peer_node, e.peer_port)] : '',
      e.cable_id ? h('span', { class: 'dim' }, ` cable ${e.cable_id}`) : '',
      h('span', { class: 'dim' }, ` ${e.source}: ${e.message}`)));
}

function stormRow(g, open) {
  const first = g.items[0];
  // Sources stamp events with their own clocks (an OpenSM log line can be older than the
  // counter sweep that arrived before it), so the span is taken over all items, not first/last.
  const times = g.items.map((e) => Date.parse(e.time));
  const secs = ((Math.max(...times) - Math.min(...times)) / 1000).toFixed(1);
  const sources = new Set([...g.counts.keys()].map((k) => k.split(' ')[0]));
  const summary = [...g.counts].sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n}× ${sources.size > 1 ? k : k.split(' ')[1]}`).join(', ');
  const details = h('details', { open: open.has(first.id),
    ontoggle: (ev) => { if (ev.target.open) open.add(first.id); else open.delete(first.id); } },
  h('summary', {}, `${g.count} events from ${[...sources].join(' + ')} in ${secs} s on ` +
    `${g.nodes.size} nodes: ${summary}`),
  g.items.map((e) => h('div', { class: 'sub' }, `${clock(e.time)} ${e.source} ${e.kind} `,
    portLink(e.node, e.port), ` ${e.message}`)),
  g.count > g.items.length ? h('div', { class: 'sub' }, `… and ${g.count - g.items.length} more`) : '');
  return h('div', { class: 'item storm', 'data-testid': 'feed-storm' },
    h('span', { class: 't', title: first.time }, clock(first.time)), badge('storm', 'warning'), details);
}

function decisionRow(d) {
  return h('div', { class: 'item', 'data-testid': 'feed-decision' },
    h('span', { class: 't', title: d.time }, clock(d.time)),
    badge(d.status),
    h('span', {}, h('b', {}, `${d.action} `), portLink(d.node, d.port),
      h('span', { class: 'dim' }, ` ${d.reason}`)));
}

function orderRow(o) {
  return h('div', { class: 'item', 'data-testid': 'feed-workorder' },
    h('span', { class: 't', title: o.updated }, clock(o.updated)),
    badge(o.status),
    h('span', {}, h('a', { href: `#/orders/${o.id}` }, `work order #${o.id}`),
      ` ${o.cable_id || ''} ${o.a} ↔ ${o.b}`, h('span', { class: 'dim' }, ` ${o.summary}`)));
}

// feed.js: the live feed. Events from the stream (and the last half hour from /events) are
// grouped: a burst from one source (each event within kBurstGapMs of the previous one) of
// kStormSize or more events shows as one "storm" line with counts per kind, expandable, so a
// UFM restart or a leaf reboot does not push everything else off the page. Decisions and
// work-order changes are single lines.
import { api } from './api.js';
import { badge, clock, h, portLink, replace } from './ui.js';

const kBurstGapMs = 1000;
const kStormSize = 10;
const kMaxGroups = 300;

export class Feed {
  constructor() {
    this.groups = [];  // newest last: {kind: 'events'|'decision'|'workorder', items: [...]}
    this.state = 'connecting';
    this.views = new Set();
    this.loaded = false;
    this.lastEventId = 0;
  }

  // Fills the feed with recent history once (the stream only sends what is new).
  async load() {
    if (this.loaded) return;
    this.loaded = true;
    let after = 0;
    const recent = [];
    for (let page = 0; page < 5; ++page) {
      const r = await api(`/events?since=30m&limit=2000${after ? '&after_id=' + after : ''}`);
      recent.push(...r.events);
      if (!r.more) break;
      after = r.last_id;
    }
    const live = this.groups;  // what the stream brought while this loaded
    this.groups = [];
    this.lastEventId = 0;
    for (const e of recent.slice(-3000)) this.addEvent(e);
    for (const g of live) for (const it of g.items) this.add(g.kind === 'events' ? 'event' : g.kind, it, true);
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
    const last = this.groups[this.groups.length - 1];
    if (last && last.kind === 'events') {
      const prev = last.items[last.items.length - 1];
      if (prev.source === e.source && Math.abs(Date.parse(e.time) - Date.parse(prev.time)) <= kBurstGapMs) {
        last.items.push(e);
        return;
      }
    }
    this.groups.push({ kind: 'events', items: [e] });
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
      this.loadError ? ` (history: ${this.loadError})` : '');
    for (let i = this.groups.length - 1; i >= 0 && rows.length < 200; --i) {
      const g = this.groups[i];
      if (g.kind === 'decision') rows.push(decisionRow(g.items[0]));
      else if (g.kind === 'workorder') rows.push(orderRow(g.items[0]));
      else if (g.items.length >= kStormSize) rows.push(stormRow(g.items));
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

function stormRow(items) {
  const kinds = new Map();
  const nodes = new Set();
  for (const e of items) {
    kinds.set(e.kind, (kinds.get(e.kind) || 0) + 1);
    if (e.node) nodes.add(e.node);
  }
  const first = items[0], last = items[items.length - 1];
  const secs = ((Date.parse(last.time) - Date.parse(first.time)) / 1000).toFixed(1);
  const summary = [...kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n}× ${k}`).join(', ');
  return h('div', { class: 'item storm', 'data-testid': 'feed-storm' },
    h('span', { class: 't', title: first.time }, clock(first.time)),
    badge('storm', 'warning'),
    h('details', {},
      h('summary', {}, `${items.length} events from ${first.source} in ${secs} s on ${nodes.size} nodes: ${summary}`),
      items.slice(0, 100).map((e) => h('div', { class: 'sub' }, `${clock(e.time)} ${e.kind} `,
        portLink(e.node, e.port), ` ${e.message}`)),
      items.length > 100 ? h('div', { class: 'sub' }, `… and ${items.length - 100} more`) : ''));
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

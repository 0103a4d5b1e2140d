// view_overview.js: the page an on-call engineer opens first. Fabric numbers at a glance, what
// ibwarden has disabled (with the reason, its work order and an Enable button), the incidents
// (one cause behind many link events: a rebooting switch, a host down), orders that need a
// human, the latest decisions, and the live feed.
import { api, byId, fabric } from './api.js';
import { debounce, enableButton } from './actions.js';
import { badge, h, jobsText, panel, portLink, replace, table, timeCell } from './ui.js';

export function render(root, ctx) {
  const stats = h('div', { class: 'stats', 'data-testid': 'fabric-stats' });
  const disabled = h('div', { 'data-testid': 'disabled-ports' });
  const incidents = h('div', { 'data-testid': 'incidents' });
  const human = h('div');
  const decisions = h('div');
  const feed = h('div');
  replace(root,
    panel('Fabric', stats),
    h('div', { class: 'grid2' },
      h('div', {},
        panel('Disabled by ibwarden', disabled),
        panel('Incidents', incidents),
        panel('Needs a human', human),
        panel('Latest decisions', decisions)),
      panel('Live feed', feed)));
  ctx.feed.mount(feed);

  async function load() {
    const [fab, orders, dec, inc] = await Promise.all([
      api('/fabric'), api('/workorders?status=active'),
      byId('/decisions?since=24h&limit=1000', 'decisions', { keep: 15 }),
      // Incidents are the watching instance's own: not asked for another fabric (?fabric=).
      fabric() ? null : api('/incidents?since=24h')]);
    replace(incidents, !inc ? h('p', { class: 'dim' }, 'listed by the instance that watches this fabric') :
      table(['since', 'kind', 'node', 'state', 'events', 'ports', 'jobs'],
      inc.map((i) => h('tr', { 'data-testid': 'incident', dataset: { kind: i.kind } },
        h('td', {}, timeCell(i.first)), h('td', {}, badge(i.kind)), h('td', {}, i.node),
        h('td', {}, badge(i.state)),
        h('td', {}, i.cycles > 1 ? `${i.events} (${i.cycles} cycles)` : `${i.events}`),
        h('td', { class: 'mono' }, i.ports.slice(0, 6).join(' ') +
          (i.ports.length > 6 ? ` +${i.ports.length - 6}` : '')),
        h('td', { 'data-testid': 'incident-jobs' }, jobsText(i.affected_jobs)))),
      'no incidents in the last 24 hours'));
    const byLink = new Map(orders.workorders.map((o) => [o.link_key, o]));
    const stat = (n, label, alert) => h('div', { class: 'stat' + (alert && n ? ' alert' : '') },
      h('b', {}, n), h('span', {}, label));
    const sev = fab.open_orders.by_severity || {};
    replace(stats,
      stat(fab.nodes, 'nodes'), stat(fab.ports, 'ports'), stat(fab.links, 'links'),
      stat(fab.down, 'planned links down', true), stat(fab.disabled, 'disabled by ibwarden', true),
      stat(fab.open_orders.total, 'open work orders'),
      stat(sev.critical || 0, 'critical orders', true),
      stat(fab.open_orders.needs_human, 'need a human', true));
    replace(disabled, table(['port', 'since', 'reason', 'work order', ''],
      fab.disabled_ports.map((d) => {
        const o = byLink.get(d.link_key);
        return h('tr', { 'data-testid': 'disabled-port', dataset: { port: `${d.node}/${d.port}` } },
          h('td', {}, portLink(d.node, d.port)), h('td', {}, timeCell(d.since)),
          h('td', {}, d.reason),
          h('td', {}, o ? h('a', { href: `#/orders/${o.id}`, 'data-testid': 'order-link' },
            `#${o.id} ${o.status}`) : ''),
          h('td', {}, enableButton(ctx, d.node, d.port, refresh)));
      }), 'no port is disabled by ibwarden'));
    replace(human, table(['order', 'cable', 'ends', 'summary'],
      orders.workorders.filter((o) => o.needs_human).map((o) => h('tr', {},
        h('td', {}, h('a', { href: `#/orders/${o.id}` }, `#${o.id}`), ' ', badge(o.severity)),
        h('td', { class: 'mono' }, o.cable_id), h('td', { class: 'mono' }, `${o.a} ↔ ${o.b}`),
        h('td', {}, o.summary))), 'nothing waits for a human'));
    replace(decisions, table(['time', 'action', 'port', 'status', 'reason'],
      dec.items.reverse().map((d) => h('tr', {},
        h('td', {}, timeCell(d.time)), h('td', {}, d.action), h('td', {}, portLink(d.node, d.port)),
        h('td', {}, badge(d.status)), h('td', {}, d.reason))),
      'no decisions in the last 24 hours'));
  }
  const refresh = debounce(() => load().catch(showError), 300);
  function showError(e) { replace(stats, h('p', { class: 'error' }, e.message)); }
  load().catch(showError);
  const timer = setInterval(refresh, 10000);
  // Decisions and orders change what this page shows; plain events only the feed (and the
  // numbers, which the 10 s refresh catches up with).
  return {
    onLive: (type) => { if (type !== 'event') refresh(); },
    stop: () => clearInterval(timer),
  };
}

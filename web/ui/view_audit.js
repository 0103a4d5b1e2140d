// view_audit.js: the last cabling audit (plan vs. the discovered fabric): the summary counts
// and the fix list, each finding with its cables, planned and found ends, rack locations and
// advice. Operators can run a new audit against the daemon's current topology.
import { api } from './api.js';
import { badge, h, panel, replace, table, timeCell } from './ui.js';

const kKinds = ['missing', 'miswired', 'swapped', 'unexpected', 'degraded', 'missing_node',
  'unknown_node', 'partition'];

function ends(list) {
  return (list || []).map((l) => h('div', { class: 'mono' }, `${l.a} ↔ ${l.b}`));
}

export function render(root, ctx) {
  const out = h('div', { 'data-testid': 'audit' });
  const err = h('p', { class: 'error' });
  const run = ctx.who.can_operate ? h('button', {
    class: 'primary', 'data-testid': 'audit-run',
    onclick: async () => {
      run.disabled = true;
      err.textContent = '';
      try { show(await api('/audit', { method: 'POST' })); } catch (e) { err.textContent = e.message; }
      run.disabled = false;
    },
  }, 'Run audit now') : '';
  replace(root, h('div', { class: 'title' }, h('h1', {}, 'Cabling audit'), run), err, out);

  function show(a) {
    const s = a.summary;
    const stat = (n, label, alert) => h('div', { class: 'stat' + (alert && n ? ' alert' : '') },
      h('b', {}, n), h('span', {}, label));
    const order = new Map(kKinds.map((k, i) => [k, i]));
    const findings = [...a.findings].sort((x, y) => (order.get(x.kind) ?? 99) - (order.get(y.kind) ?? 99));
    replace(out,
      h('p', { class: 'dim' }, 'run ', timeCell(a.time), ' on the topology discovered ', timeCell(a.topology_time)),
      panel('Summary', h('div', { class: 'stats' },
        stat(s.planned_links, 'planned links'), stat(s.found_links, 'found links'), stat(s.ok, 'ok'),
        kKinds.map((k) => stat(s[k] || 0, k.replace('_', ' '), true)))),
      panel(`Fix list (${findings.length})`, table(['kind', 'cables', 'planned', 'found', 'locations', 'advice'],
        findings.map((f) => h('tr', { 'data-testid': 'audit-finding' },
          h('td', {}, badge(f.kind, f.kind === 'degraded' ? 'warning' : 'critical')),
          h('td', { class: 'mono' }, (f.cables || []).join(', ')),
          h('td', {}, ends(f.planned)), h('td', {}, ends(f.found)),
          h('td', {}, (f.locations || []).join(', ')), h('td', {}, f.advice))),
        'the fabric matches the plan')));
  }
  api('/audit').then(show).catch((e) => {
    if (e.status === 404) replace(out, h('p', { class: 'empty' }, 'No audit has run yet.',
      ctx.who.can_operate ? ' Run one now.' : ' An operator can run one.'));
    else err.textContent = e.message;
  });
}

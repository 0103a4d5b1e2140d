// view_port.js: the link page ("#/port/NODE/PORT"): the port and its peer, cable and state,
// a counter chart (per-second rate or raw value, over a chosen window), the port's events,
// ibwarden's decisions and its work order, with Disable/Enable for operators.
import { api, portPath } from './api.js';
import { debounce, disableButton, enableButton } from './actions.js';
import { lineChart, ratesOf } from './chart.js';
import { badge, h, kErrorCounters, panel, portLink, replace, table, timeCell } from './ui.js';

export function render(root, ctx, [node, port]) {
  const head = h('div');
  const chartBox = h('div');
  const side = h('div');
  const events = h('div');
  const counter = h('select', { 'data-testid': 'chart-counter' });
  const mode = h('select', {}, h('option', { value: 'rate' }, 'per second'), h('option', { value: 'raw' }, 'raw value'));
  const since = h('select', {}, ['15m', '1h', '6h', '24h', '7d'].map((s) => h('option', { value: s, selected: s === '1h' }, s)));
  replace(root, head, h('div', { class: 'grid2' },
    h('div', {}, panel('Counters', h('div', { class: 'toolbar' }, counter, mode, since), chartBox),
      panel('Events', events)), side));
  let data = null;

  function drawChart() {
    if (!data) return;
    const hist = data.history;
    const name = counter.value;
    const raw = hist.counters[name] || [];
    const values = mode.value === 'rate' ? ratesOf(hist.times, raw) : raw;
    replace(chartBox, lineChart(hist.times, values, { label: `${name} ${mode.value === 'rate' ? '/s' : ''}` }),
      h('p', { class: 'dim' }, `${hist.samples} samples in ${since.value}` + (hist.step > 1 ? `, every ${hist.step}th shown` : '')));
  }

  async function load() {
    data = await api(`${portPath(node, port)}?since=${since.value}&max_points=600`);
    const p = data.port;
    const names = Object.keys(data.history.counters);
    if (!counter.options.length || counter.options.length !== names.length) {
      const pick = counter.value || names.find((n) => kErrorCounters.includes(n) && (p.deltas[n] || p.counters[n])) ||
        (names.includes('SymbolErrorCounter') ? 'SymbolErrorCounter' : names[0]);
      replace(counter, names.map((n) => h('option', { value: n, selected: n === pick }, n)));
    }
    const off = data.disabled !== null;
    replace(head, h('div', { class: 'title' }, h('h1', { class: 'mono' }, `${p.node}/${p.port}`),
      badge(off ? 'disabled' : p.state, off ? 'disabled' : p.state === 'Active' ? 'ok' : 'down'),
      off ? enableButton(ctx, p.node, p.port, load) : disableButton(ctx, p.node, p.port, load)),
    h('p', { 'data-testid': 'port-summary' },
      p.peer_node ? ['peer ', portLink(p.peer_node, p.peer_port)] : 'no peer', ' · ',
      `cable ${p.cable_id || '(not in the plan)'} · ${p.phys_state} · ${p.width} ${p.speed} · LID ${p.lid}`,
      off ? h('span', {}, ` · disabled ${data.disabled.since} by ibwarden: ${data.disabled.reason}`) : ''));
    drawChart();
    replace(events, table(['time', 'severity', 'kind', 'source', 'message'],
      [...data.events].reverse().map((e) => h('tr', {}, h('td', {}, timeCell(e.time)), h('td', {}, badge(e.severity)),
        h('td', {}, e.kind), h('td', {}, e.source), h('td', {}, e.message))), 'no events in this window'),
    data.events_truncated ? h('p', { class: 'dim' }, 'only the last 200 events are shown') : '');
    const o = data.workorder;
    replace(side,
      panel('Work order', o ? h('div', {},
        h('p', {}, h('a', { href: `#/orders/${o.id}`, 'data-testid': 'port-order-link' }, `#${o.id}`), ' ',
          badge(o.status), ' ', badge(o.severity)),
        h('p', {}, o.summary), h('p', {}, h('b', {}, o.advice))) : h('p', { class: 'empty' }, 'none')),
      panel('Decisions', table(['time', 'action', 'status', 'reason'],
        [...data.decisions].reverse().map((d) => h('tr', {}, h('td', {}, timeCell(d.time)), h('td', {}, d.action),
          h('td', {}, badge(d.status)), h('td', {}, d.reason))), 'none')),
      p.ufm ? panel('UFM\'s view', h('dl', { class: 'kv', 'data-testid': 'ufm-view' },
        Object.entries(p.ufm).filter(([, v]) => v !== '' && v !== null && typeof v !== 'object')
          .flatMap(([k, v]) => [h('dt', {}, k.replace(/_/g, ' ')), h('dd', {}, String(v))]))) : '',
      panel('Counters now', table(['counter', 'value', 'last delta', '/s'],
        Object.keys(p.counters).map((n) => h('tr', {}, h('td', {}, n), h('td', {}, p.counters[n]),
          h('td', {}, p.deltas[n] ?? ''), h('td', {}, p.rates[n] !== undefined ? p.rates[n].toFixed(2) : ''))))));
  }
  const fail = (e) => replace(head, h('p', { class: 'error' }, e.message));
  counter.addEventListener('change', drawChart);
  mode.addEventListener('change', drawChart);
  since.addEventListener('change', () => load().catch(fail));
  load().catch(fail);
  const refresh = debounce(() => load().catch(fail), 2000);
  const timer = setInterval(refresh, 10000);
  return {
    onLive: (type, d) => { if (type !== 'event' || (d.node === node && String(d.port) === port)) refresh(); },
    stop: () => clearInterval(timer),
  };
}

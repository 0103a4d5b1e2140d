// view_ports.js: the per-switch port grid. One row per switch, one cell per port, coloured by
// state and, for active ports, by error rate over the last sweep (green = clean, through
// yellow to red at 10^4 errors/s). Host ports share one compact block. A cell links to its
// port page. Built for fabrics of thousands of ports: one pass over /ports, plain DOM nodes,
// redrawn at most every 2 s while the live feed is busy.
import { allPorts } from './api.js';
import { debounce } from './actions.js';
import { errorRate, h, panel, portHref, replace } from './ui.js';

// A node is drawn as a switch when it has more than two ports (HCAs have one or two).
function groupByNode(ports) {
  const nodes = new Map();
  for (const p of ports) {
    if (!nodes.has(p.node)) nodes.set(p.node, []);
    nodes.get(p.node).push(p);
  }
  const collator = new Intl.Collator(undefined, { numeric: true });
  const names = [...nodes.keys()].sort(collator.compare);
  const switches = [], hosts = [];
  for (const n of names) {
    const list = nodes.get(n).sort((a, b) => a.port - b.port);
    (list.length > 2 || list.some((p) => p.port > 2) ? switches : hosts).push([n, list]);
  }
  return { switches, hosts };
}

export function heat(rate) {
  const x = Math.min(1, Math.log10(1 + rate) / 4);
  return `hsl(${Math.round(120 - 120 * x)}, 70%, ${Math.round(38 + 10 * x)}%)`;
}

function cell(p) {
  const off = p.disabled_by_ibwarden || p.phys_state === 'Disabled';
  const state = off ? 'disabled' : (p.state || '?').toLowerCase();
  const rate = errorRate(p);
  const a = h('a', {
    class: `cell s-${state}${p.cable_id ? ' planned' : ''}`, href: portHref(p.node, p.port),
    dataset: { port: `${p.node}/${p.port}` },
    title: `${p.node}/${p.port} ${off ? 'Disabled' : p.state} ${p.width} ${p.speed}` +
      (p.peer_node ? `\n→ ${p.peer_node}/${p.peer_port}` : '') +
      (p.cable_id ? `\ncable ${p.cable_id}` : '') +
      (rate > 0 ? `\n${rate.toFixed(1)} errors/s` : ''),
  });
  if (state === 'active' && rate > 0) a.style.backgroundColor = heat(rate);
  return a;
}

export function render(root, ctx) {
  const filter = h('input', { type: 'search', placeholder: 'filter nodes (substring)', 'data-testid': 'port-filter' });
  const onlyBad = h('input', { type: 'checkbox' });
  const info = h('span', { class: 'dim' });
  const grid = h('div', { 'data-testid': 'port-grid' });
  const legend = h('div', { class: 'legend' },
    h('span', { class: 'cell s-active' }), 'active, clean',
    h('span', { class: 'cell s-active', style: null }), 'active with errors (heat)',
    h('span', { class: 'cell s-down planned' }), 'planned link down',
    h('span', { class: 'cell s-down' }), 'down (unused)',
    h('span', { class: 'cell s-init' }), 'init/armed',
    h('span', { class: 'cell s-disabled' }), 'disabled');
  legend.children[1].style.backgroundColor = heat(300);
  replace(root, panel('Ports',
    h('div', { class: 'toolbar' }, filter, h('label', {}, onlyBad, ' only switches with errors or down links'), info),
    legend, grid));
  let ports = [];

  function draw() {
    const q = filter.value.trim().toLowerCase();
    const { switches, hosts } = groupByNode(ports.filter((p) => !q || p.node.toLowerCase().includes(q)));
    const bad = (list) => list.some((p) => errorRate(p) > 0 || p.disabled_by_ibwarden ||
      (p.cable_id && p.state !== 'Active'));
    const rows = switches.filter(([, list]) => !onlyBad.checked || bad(list)).map(([name, list]) =>
      h('div', { class: 'switch-row', 'data-testid': 'switch-row' },
        h('span', { class: 'name', title: name }, name), h('div', { class: 'cells' }, list.map(cell))));
    const hostPorts = hosts.flatMap(([, list]) => list);
    const hostRows = hostPorts.length && (!onlyBad.checked || bad(hostPorts))
      ? h('div', { class: 'switch-row' }, h('span', { class: 'name' }, `hosts (${hosts.length})`),
        h('div', { class: 'cells' }, hostPorts.filter((p) => !onlyBad.checked || errorRate(p) > 0 ||
          p.disabled_by_ibwarden || (p.cable_id && p.state !== 'Active')).map(cell))) : '';
    replace(grid, rows, hostRows, rows.length || hostRows ? '' : h('p', { class: 'empty' }, 'no ports match'));
    info.textContent = `${ports.length} ports, ${switches.length} switches, ${hosts.length} hosts`;
  }
  async function load() {
    try {
      ports = await allPorts();
      draw();
    } catch (e) {
      replace(grid, h('p', { class: 'error' }, e.message));
    }
  }
  filter.addEventListener('input', debounce(draw, 150));
  onlyBad.addEventListener('change', draw);
  load();
  // Redraw on what changes a cell (link events, decisions); else every 15 s; never while the
  // tab is hidden (a 10,000-port list is ~15 MB of JSON).
  const refresh = debounce(() => { if (!document.hidden) load(); }, 2000);
  const timer = setInterval(() => { if (!document.hidden) load(); }, 15000);
  const cellKinds = /^(link_|port_|counter_jump|high_ber|width)/;
  return {
    onLive: (type, d) => { if (type === 'decision' || (type === 'event' && cellKinds.test(d.kind))) refresh(); },
    stop: () => clearInterval(timer),
  };
}

// ui.js: small DOM and formatting helpers shared by the views. Text always goes in through
// textContent (never innerHTML), so node descriptions and notes cannot inject markup.

// h('a', {href: '#/', class: 'x', onclick: f}, 'text', child, [more]) -> Element
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function badge(text, cls) { return h('span', { class: 'badge ' + (cls || text) }, text); }

// "12s ago", "5m ago", "3h ago", "2d ago"; '' for an empty time.
export function ago(iso) {
  if (!iso) return '';
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (s < 60) return Math.round(s) + 's ago';
  if (s < 3600) return Math.round(s / 60) + 'm ago';
  if (s < 86400) return Math.round(s / 3600) + 'h ago';
  return Math.round(s / 86400) + 'd ago';
}

// Local wall-clock "HH:MM:SS" of an ISO time (the tooltip keeps the full UTC time).
export function clock(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return d.toLocaleTimeString([], { hour12: false });
}

export function timeCell(iso) {
  return h('span', { title: iso }, iso ? `${clock(iso)} (${ago(iso)})` : '');
}

export function portHref(node, port) {
  return `#/port/${encodeURIComponent(node)}/${encodeURIComponent(port)}`;
}

export function portLink(node, port) {
  if (!node) return '';
  return h('a', { href: portHref(node, port), class: 'mono' }, `${node}/${port}`);
}

// "leaf003/17" -> ['leaf003', '17'] (the port follows the last '/').
export function splitEnd(label) {
  const i = label.lastIndexOf('/');
  return i < 0 ? [label, ''] : [label.slice(0, i), label.slice(i + 1)];
}

export function table(headers, rows, empty) {
  if (!rows.length) return h('p', { class: 'empty' }, empty || 'none');
  return h('table', {},
    h('thead', {}, h('tr', {}, headers.map((t) => h('th', {}, t)))),
    h('tbody', {}, rows));
}

export function panel(title, ...children) {
  return h('section', { class: 'panel' }, h('h2', {}, title), ...children);
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function showBanner(text, kind) {
  const b = document.getElementById('banner');
  if (!text) { b.hidden = true; return; }
  b.className = 'banner ' + (kind || '');
  b.textContent = text;
  b.hidden = false;
}

// Error counters: any rise is worth a look (the names are the CLI's counter names).
export const kErrorCounters = [
  'SymbolErrorCounter', 'LinkErrorRecoveryCounter', 'LinkDownedCounter', 'PortRcvErrors',
  'PortRcvRemotePhysicalErrors', 'PortRcvSwitchRelayErrors', 'PortXmitDiscards',
  'PortXmitConstraintErrors', 'PortRcvConstraintErrors', 'LocalLinkIntegrityErrors',
  'ExcessiveBufferOverrunErrors',
];

// Errors per second over the last sweep, summed over the error counters.
export function errorRate(p) {
  let sum = 0;
  for (const c of kErrorCounters) sum += (p.rates && p.rates[c]) || 0;
  return sum;
}

// The running Slurm jobs a link carries (affected_jobs: [{id, user, nodes}], null when Slurm
// is not configured) as one line: "1234 (alice, 2 nodes), ...".
export function jobsText(jobs) {
  if (jobs == null) return 'not known (no Slurm)';
  if (!jobs.length) return 'none';
  return jobs.map((j) => `${j.id} (${j.user}, ${j.nodes} node${j.nodes === 1 ? '' : 's'})`).join(', ');
}

// view_ports.js: the port grid, virtualized for fabrics of 200,000 ports. Every port is one
// cell, in the API's order (node name, then port), `cols` cells to a row; a cell is coloured
// by state and, for active ports, by error rate over the last sweep (green = clean, through
// yellow to red at 10^4 errors/s), and links to its port page. The "congestion" heat view
// colours instead the ports with a current congestion finding (GET /api/v1/congestion: the
// share of time the port waited to send, or its discard rate; a signal, not a fault) on a
// scale of its own, blue through purple, so it is never read as errors.
//
// Only what is on screen exists: the grid's height comes from the port count (`total` of the
// first page); the cells near the view are painted on canvas tiles of kTileRows rows placed at
// their offset (grid_canvas.js: ~5,500 DOM cells cost 66-300 ms frames at 393k ports, issue
// 32), which the browser scrolls itself; the rows in view (plus a
// margin) are small DOM elements at their offset: the row label, and a description of what
// the canvas shows for tests and assistive tech ([data-testid=grid-row][data-row=N],
// data-ports: a JSON list of "node/port", data-pending while a page it shows is coming).
// Clicks, the tooltip and the keyboard go through two real links (grid_input.js). The ports
// are fetched from /api/v1/ports (grid_pages.js, by a Web Worker that parses them off the
// main thread) a page of kPage at a time, nearest to the
// view first, at most two requests at once; a row whose page is still coming shows grey
// placeholders. At most kKeepPages pages are kept (those farthest from the view are dropped).
// Filters are the API's own (node name or 0xGUID, state, with errors), so a filtered grid
// pages the same way. Live changes (link events, decisions) and a 15 s timer refetch the
// pages in view; the old cells stay until the new ones arrive.
import { api } from './api.js';
import { debounce } from './actions.js';
import { errorRate, h, panel, replace } from './ui.js';
import { cellLook, congestionHeat, heat, kNameWidth, kPitch, kRowHeight, kTileMargin, kTileRows, paintTile } from './grid_canvas.js';
import { gridInput } from './grid_input.js';
import { page } from './grid_pages.js';

const kPage = 500;        // ports per request (~750 KB of JSON, a few ms to parse)
const kKeepPages = 40;    // pages kept in memory
const kOverscan = 8;      // row labels kept above and below the view

// The heat shown: 'errors' or 'congestion'; `congested` maps "0xGUID/port" to its finding.
const view = { mode: 'errors', congested: new Map(), version: 0 };
const congestionOf = (p) => view.congested.get(`${p.node_guid}/${p.port}`);

// The tooltip of a cell, built when the pointer first rests on it (not for every cell drawn).
function title(p) {
  const c = congestionOf(p);
  const off = p.disabled_by_ibwarden || p.phys_state === 'Disabled';
  const rate = errorRate(p);
  return `${p.node}/${p.port} ${off ? 'Disabled' : p.state} ${p.width} ${p.speed}` +
    (p.peer_node ? `\n→ ${p.peer_node}/${p.peer_port}` : '') +
    (p.cable_id ? `\ncable ${p.cable_id}` : '') +
    (rate > 0 ? `\n${rate.toFixed(1)} errors/s` : '') +
    (c ? `\ncongested: waits ${(100 * c.wait_ratio).toFixed(1)}% (~${c.lost_gbps.toFixed(1)} Gb/s lost), ` +
      `${c.discards_per_s.toFixed(0)} discards/s` : '');
}

// A port's look on the canvas, computed once per port and heat (view.version), not per frame.
const looks = new WeakMap();  // port -> {v, look}
function lookOf(p) {
  const have = looks.get(p);
  if (have && have.v === view.version) return have.look;
  const look = cellLook(p, view.mode, congestionOf(p), errorRate(p));
  looks.set(p, { v: view.version, look });
  return look;
}

export function render(root, ctx) {
  const node = h('input', { type: 'search', placeholder: 'node name or 0xGUID (exact)', 'data-testid': 'port-filter' });
  const state = h('select', { 'data-testid': 'state-filter' },
    ['', 'active', 'down', 'init', 'armed', 'disabled'].map((s) => h('option', { value: s }, s || 'any state')));
  const onlyBad = h('input', { type: 'checkbox', 'data-testid': 'errors-filter' });
  const heatMode = h('select', { 'data-testid': 'heat-mode' },
    h('option', { value: 'errors' }, 'heat: errors'), h('option', { value: 'congestion' }, 'heat: congestion'));
  view.mode = 'errors';
  const info = h('span', { class: 'dim', 'data-testid': 'grid-info' });
  const inner = h('div', { class: 'vgrid-inner' });
  const grid = h('div', { class: 'vgrid', 'data-testid': 'port-grid', tabindex: '0' }, inner);
  const legend = h('div', { class: 'legend' },
    h('span', { class: 'cell s-active' }), 'active, clean',
    h('span', { class: 'cell s-active', style: null }), 'active with errors (heat)',
    h('span', { class: 'cell s-down planned' }), 'planned link down',
    h('span', { class: 'cell s-down' }), 'down (unused)',
    h('span', { class: 'cell s-init' }), 'init/armed',
    h('span', { class: 'cell s-disabled' }), 'disabled',
    h('span', { class: 'cell s-active' }), 'congested (congestion heat)');
  legend.children[1].style.backgroundColor = heat(300);
  legend.children[6].style.backgroundColor = congestionHeat({ wait_ratio: 0.25, discards_per_s: 0 });
  replace(root, panel('Ports',
    h('div', { class: 'toolbar' }, node, state, h('label', {}, onlyBad, ' only ports with errors'), heatMode, info),
    legend, grid));

  let query = '';         // the filter, as API parameters
  let total = -1;         // ports matching; -1 before the first answer
  let cols = 64;
  let generation = 0;     // bumped by a filter change: older answers are dropped
  let pages = new Map();  // page index -> {ports, generation, stale}
  const inflight = new Set();
  const rows = new Map(); // row index -> {el, ready, dirty: a page it shows arrived}
  let error = null;
  let stopped = false;

  function measure() {
    const width = grid.clientWidth || 1000;
    const c = Math.max(8, Math.floor((width - kNameWidth) / kPitch));
    if (c === cols) return false;
    cols = c;
    return true;
  }
  measure();
  const input = gridInput(grid, inner, { cols: () => cols, total: () => Math.max(0, total), port, title });

  function port(i) {
    const p = pages.get(Math.floor(i / kPage));
    return p ? p.ports[i % kPage] : undefined;
  }
  function visibleRows() {
    const first = Math.max(0, Math.floor(grid.scrollTop / kRowHeight) - kOverscan);
    const count = Math.ceil(grid.clientHeight / kRowHeight) + 2 * kOverscan;
    const nrows = Math.ceil(Math.max(0, total) / cols);
    return [first, Math.min(nrows, first + count)];
  }
  // Makes a row element (recycled, or new) describe row r: its label and the ports the canvas
  // shows there; false while a page it needs is missing.
  function fillRow(el, r) {
    const from = r * cols, to = Math.min(total, from + cols);
    const labels = [];
    let ready = true, firstNode = '', lastNode = '';
    for (let i = from; i < to; ++i) {
      const p = port(i);
      if (!p) { ready = false; continue; }
      if (!firstNode) firstNode = p.node;
      lastNode = p.node;
      labels.push(`${p.node}/${p.port}`);
    }
    const label = firstNode === lastNode ? firstNode : `${firstNode} … ${lastNode}`;
    const name = el.firstChild;
    if (name.textContent !== label) { name.textContent = label; name.title = label; }
    const list = JSON.stringify(labels);
    if (el.dataset.ports !== list) el.dataset.ports = list;
    if (ready) el.removeAttribute('data-pending'); else el.dataset.pending = 'true';
    el.dataset.row = String(r);
    el.style.top = `${r * kRowHeight}px`;
    return ready;
  }
  const spare = [];  // row elements out of the document, for reuse
  function newRowEl() {
    return spare.pop() || h('div', { class: 'vrow', 'data-testid': 'grid-row' }, h('span', { class: 'name' }));
  }
  function dropRows() {
    for (const row of rows.values()) { row.el.remove(); spare.push(row.el); }
    rows.clear();
    input.reset();
    for (const t of tiles.values()) { t.el.remove(); spareTiles.push(t.el); }
    tiles.clear();
  }
  // The canvas tiles (grid_canvas.js) over the rows [first, last): kept while in reach,
  // painted when new or when their ports changed (dirty).
  const tiles = new Map();  // tile index -> {el, dirty}
  const spareTiles = [];
  function paintTiles(first, last, nrows) {
    const a = Math.floor(first / kTileRows), b = Math.floor((last - 1) / kTileRows);
    for (const [t, tile] of tiles) {
      if (t < a || t > b) { tile.el.remove(); spareTiles.push(tile.el); tiles.delete(t); }
    }
    const cells = (r) => (r < nrows ? Math.min(total, (r + 1) * cols) - r * cols : 0);
    const look = (r, c) => { const p = port(r * cols + c); return p ? lookOf(p) : null; };
    for (let t = a; t <= b; ++t) {
      let tile = tiles.get(t);
      if (tile && !tile.dirty) continue;
      if (!tile) {
        const el = spareTiles.pop() || h('canvas', { class: 'vgrid-tile', 'aria-hidden': 'true' });
        el.style.top = `${t * kTileRows * kRowHeight}px`;
        el.style.left = `${kNameWidth - kTileMargin}px`;
        inner.append(el);
        tiles.set(t, (tile = { el }));
      }
      tile.dirty = false;
      paintTile(tile.el, t * kTileRows, cols, cells, look);
    }
  }
  const dirtyTiles = () => { for (const t of tiles.values()) t.dirty = true; };

  // Draws the cells in view and the rows' labels (rows that left the view are moved to the rows
  // that entered it; a row is filled again only when a page it shows arrived) and asks for the
  // pages they need.
  function draw() {
    if (stopped) return;
    if (error) { replace(inner, h('p', { class: 'error' }, error)); rows.clear(); return; }
    if (total === 0) { replace(inner, h('p', { class: 'empty' }, 'no ports match')); rows.clear(); return; }
    if (total < 0) return;
    if (input.elements[0].parentNode !== inner) { replace(inner, ...input.elements); tiles.clear(); }
    const nrows = Math.ceil(total / cols);
    const height = `${nrows * kRowHeight}px`;
    if (inner.style.height !== height) inner.style.height = height;
    const [first, last] = visibleRows();
    paintTiles(first, last, nrows);
    const free = [];
    for (const [r, row] of rows) {
      if (r < first || r >= last) { free.push(row.el); rows.delete(r); }
    }
    const need = new Set();
    for (let r = first; r < last; ++r) {
      const have = rows.get(r);
      if (have && !have.dirty) continue;
      let el = have && have.el;
      if (!el) {
        el = free.pop();
        if (!el) { el = newRowEl(); inner.append(el); }
      }
      rows.set(r, { el, ready: fillRow(el, r), dirty: false });
    }
    for (const el of free) { el.remove(); spare.push(el); }
    input.refresh();
    for (let r = first; r < last; ++r) {
      const a = Math.floor((r * cols) / kPage), b = Math.floor((Math.min(total, (r + 1) * cols) - 1) / kPage);
      for (let k = a; k <= b; ++k) if (!pages.has(k) || pages.get(k).stale) need.add(k);
    }
    fetchPages([...need], Math.floor((first * cols) / kPage));
  }
  let frame = 0;
  const redraw = () => { if (!frame) frame = requestAnimationFrame(() => { frame = 0; draw(); }); };

  function fetchPages(need, near) {
    need.sort((a, b) => Math.abs(a - near) - Math.abs(b - near));
    for (const k of need) {
      const gen = generation, key = `${gen}:${k}`;
      if (inflight.size >= 2) return;
      if (inflight.has(key)) continue;
      inflight.add(key);
      page(`/ports?limit=${kPage}&offset=${k * kPage}${query}`).then((got) => {
        if (gen !== generation) return;
        pages.set(k, { ports: got.ports, stale: false });
        if (got.total !== total) setTotal(got.total);
        for (const [r, row] of rows) {  // its rows are drawn again with the new ports
          if (Math.floor((r * cols) / kPage) <= k && Math.floor(((r + 1) * cols - 1) / kPage) >= k) row.dirty = true;
        }
        for (const [t, tile] of tiles) {  // its tiles are painted again
          if (Math.floor((t * kTileRows * cols) / kPage) <= k && Math.floor(((t + 1) * kTileRows * cols - 1) / kPage) >= k) tile.dirty = true;
        }
        evict(k);
      }).catch((e) => {
        if (gen === generation) error = e.message;
      }).finally(() => {
        inflight.delete(key);
        if (gen === generation) redraw();
      });
    }
  }
  function evict(near) {
    if (pages.size <= kKeepPages) return;
    const far = [...pages.keys()].sort((a, b) => Math.abs(b - near) - Math.abs(a - near));
    for (const k of far.slice(0, pages.size - kKeepPages)) pages.delete(k);
  }
  function setTotal(n) {
    total = n;
    dropRows();
    grid.dataset.total = String(n);
    info.textContent = `${n.toLocaleString('en')} ports${query ? ' match' : ''}, ${cols} to a row`;
  }

  // A new filter: start over from the first page.
  function refilter() {
    const q = [];
    if (node.value.trim()) q.push('node=' + encodeURIComponent(node.value.trim()));
    if (state.value) q.push('state=' + state.value);
    if (onlyBad.checked) q.push('has_errors=true');
    query = q.map((s) => '&' + s).join('');
    ++generation;
    pages = new Map();
    error = null;
    total = -1;
    grid.scrollTop = 0;
    dropRows();
    const gen = generation;
    page(`/ports?limit=${kPage}&offset=0${query}`).then((got) => {
      if (gen !== generation) return;
      pages.set(0, { ports: got.ports, stale: false });
      setTotal(got.total);
    }).catch((e) => { if (gen === generation) error = e.message; }).finally(() => {
      if (gen === generation) draw();
    });
  }
  // The congestion heat's findings (a new version repaints every cell in view).
  function loadCongestion() {
    if (view.mode !== 'congestion') return Promise.resolve();
    return api('/congestion').then((got) => {
      view.congested = new Map(got.ports.map((c) => [`${c.node_guid}/${c.port}`, c]));
    }).catch(() => { view.congested = new Map(); }).finally(() => {
      ++view.version;
      for (const row of rows.values()) row.dirty = true;
      dirtyTiles();
      redraw();
    });
  }
  // Live refresh: the pages in view are fetched again; their cells stay until then.
  function reload() {
    if (document.hidden || total < 0) return;
    loadCongestion();
    for (const p of pages.values()) p.stale = true;
    redraw();
  }

  grid.addEventListener('scroll', redraw, { passive: true });
  const onResize = debounce(() => {
    const firstPort = Math.floor(grid.scrollTop / kRowHeight) * cols;
    if (!measure()) { dirtyTiles(); redraw(); return; }  // the same columns (a new zoom: sharp tiles)
    dropRows();
    if (total >= 0) setTotal(total);
    grid.scrollTop = Math.floor(firstPort / cols) * kRowHeight;
    draw();
  }, 200);
  window.addEventListener('resize', onResize);
  node.addEventListener('input', debounce(refilter, 300));
  node.addEventListener('keydown', (e) => { if (e.key === 'Enter') refilter(); });
  state.addEventListener('change', refilter);
  onlyBad.addEventListener('change', refilter);
  heatMode.addEventListener('change', () => {
    view.mode = heatMode.value;
    if (view.mode === 'congestion') return loadCongestion();
    ++view.version;
    for (const row of rows.values()) row.dirty = true;
    dirtyTiles();
    redraw();
  });
  refilter();
  const refresh = debounce(reload, 2000);
  const timer = setInterval(reload, 15000);
  const cellKinds = /^(link_|port_|counter_jump|high_ber|width|congestion)/;
  return {
    onLive: (type, d) => { if (type === 'decision' || (type === 'event' && cellKinds.test(d.kind))) refresh(); },
    stop: () => { stopped = true; clearInterval(timer); window.removeEventListener('resize', onResize); },
  };
}

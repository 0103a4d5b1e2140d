// view_routes.js: cursed routes. A heatmap of route health (leaf rows = sources, leaf columns =
// destinations, coloured by loss over the probe window: measured where probes ran between the
// two leaves, else predicted from the directed-route probes of every link), the ranked
// suspects of the last localization with their evidence, and the cursed_path decisions of the
// last day. Clicking a cell shows the suspects that touch either leaf; a suspect links to the
// receiving port's page (counters, decisions, work order). Large fabrics show the worst
// kMaxLeaves leaves only.
import { api, byId } from './api.js';
import { badge, h, panel, portHref, portLink, replace, table, timeCell } from './ui.js';

const kMaxLeaves = 160;

// 0 = green, 1e-4 .. 0.5 on a log scale through yellow to red; null = no data.
export function lossColour(loss) {
  if (loss === null || loss === undefined) return '';
  if (loss <= 0) return 'hsl(120, 55%, 32%)';
  const x = Math.min(1, Math.max(0, (Math.log10(loss) + 4) / (4 - Math.log10(2))));
  return `hsl(${Math.round(100 - 100 * x)}, 75%, ${Math.round(36 + 10 * x)}%)`;
}

const pct = (x) => (x === null || x === undefined ? '–' : `${(100 * x).toFixed(x < 0.01 ? 3 : 1)}%`);

// The indices of the leaves to draw: all of them, or the kMaxLeaves with the worst row/column.
function pickLeaves(m) {
  const n = m.switches.length;
  const all = [...Array(n).keys()];
  if (n <= kMaxLeaves) return all;
  const worst = all.map((i) => {
    let w = 0;
    for (let j = 0; j < n; ++j) w = Math.max(w, m.loss[i][j] || 0, m.loss[j][i] || 0);
    return [w, i];
  });
  return worst.sort((a, b) => b[0] - a[0]).slice(0, kMaxLeaves).map(([, i]) => i).sort((a, b) => a - b);
}

function heatmap(m, onPick) {
  const idx = pickLeaves(m);
  const grid = h('div', { class: 'heatmap', 'data-testid': 'route-heatmap' });
  grid.style.gridTemplateColumns = `150px repeat(${idx.length}, 14px)`;
  grid.append(h('span', { class: 'corner dim' }, 'from \\ to'));
  for (const j of idx) grid.append(h('span', { class: 'colname', title: m.switches[j] }, ''));
  for (const i of idx) {
    grid.append(h('span', { class: 'rowname mono', title: m.switches[i] }, m.switches[i]));
    for (const j of idx) {
      const loss = m.loss[i][j];
      const sent = m.sent[i][j];
      const how = sent ? `measured: ${m.lost[i][j]} of ${sent} lost` : (loss === null ? 'no data' : 'predicted');
      const c = h('span', {
        class: 'hcell' + (loss === null ? ' none' : ''),
        dataset: { from: m.switches[i], to: m.switches[j], loss: loss === null ? '' : String(loss) },
        title: `${m.switches[i]} → ${m.switches[j]}: loss ${pct(loss)} (${how})`,
        onclick: () => onPick(m.switches[i], m.switches[j], loss),
      });
      if (loss !== null) c.style.backgroundColor = lossColour(loss);
      grid.append(c);
    }
  }
  const shown = idx.length < m.switches.length
    ? h('p', { class: 'dim' }, `the ${idx.length} leaves with the worst routes of ${m.switches.length}`) : '';
  return [shown, grid];
}

function linkCell(l) {
  return h('div', {}, portLink(l.from.node, l.from.port), ' → ', portLink(l.to.node, l.to.port),
    l.cable_id ? h('span', { class: 'dim mono' }, ` ${l.cable_id}`) : '');
}

function suspectRows(list) {
  return list.map((s) => h('tr', { 'data-testid': 'suspect' },
    h('td', {}, s.rank),
    h('td', {}, s.links.length > 1 ? h('div', { class: 'dim' }, `one of ${s.links.length} links`) : '',
      s.links.map(linkCell)),
    h('td', {}, pct(s.loss)),
    h('td', {}, Number(s.score).toFixed(1)),
    h('td', {}, `${s.bad_observations} / ${s.good_observations}`),
    h('td', { class: 'mono' }, (s.sample_bad_pairs || []).slice(0, 3).map((p) => h('div', {}, p))),
    h('td', {}, h('a', {
      href: portHref(s.links[0].to.node, s.links[0].to.port), 'data-testid': 'suspect-evidence',
    }, 'evidence'))));
}

function decisionRows(list) {
  return list.map((d) => h('tr', { 'data-testid': 'cursed-decision' },
    h('td', {}, timeCell(d.time)),
    h('td', {}, portLink(d.node, d.port), d.peer_node ? [' ↔ ', portLink(d.peer_node, d.peer_port)] : ''),
    h('td', {}, badge(d.action, 'info'), ' ', badge(d.status)),
    h('td', {}, d.reason)));
}

const linkText = (l) => `${l.from.node}/${l.from.port} → ${l.to ? `${l.to.node}/${l.to.port}` : '?'}`;

// The daemon's last route check of the LFTs (GET /routes/check): engine, credit loops (each
// as its links), unreachable pairs, balance and the busiest links.
export function routeCheck(r) {
  if (!r.checked) return h('p', { class: 'dim' }, 'no route check yet (it runs when OpenSM writes opensm-lfts.dump)');
  const engine = r.fallback
    ? [badge('fallback', 'error'), ` OpenSM routes with ${r.engine}, not ${r.configured_engine}: ${r.fallback_reason}`]
    : [`routing engine ${r.engine}`];
  const b = r.balance;
  return h('div', { 'data-testid': 'route-check' },
    h('p', {}, ...engine, ` · checked `, timeCell(r.time), ` (${r.sources} CA LIDs to ${r.destinations} LIDs)`),
    h('h3', {}, `Credit loops: ${r.credit_loops.length}`),
    table(['#', 'links (each feeds the next; the last feeds the first)'],
      r.credit_loops.map((loop, i) => h('tr', {}, h('td', {}, String(i + 1)),
        h('td', {}, loop.links.map(linkText).join(', ')))), 'none: no deadlock risk'),
    h('h3', {}, `Unreachable pairs: ${r.unreachable_pairs}`),
    table(['source LID', 'destination LID', 'why'],
      r.unreachable.map((u) => h('tr', {}, h('td', {}, String(u.src_lid)), h('td', {}, String(u.dst_lid)),
        h('td', {}, u.reason))), 'none'),
    h('h3', {}, `Balance: max ${b.max_routes} / min ${b.min_routes} routes per link (ratio ${b.ratio.toFixed(2)}), ${b.idle_links} idle of ${b.links}`),
    table(['routes', 'link'], b.worst.map((w) => h('tr', {}, h('td', {}, String(w.routes)), h('td', {}, linkText(w)))), 'none'));
}

export function render(root) {
  const info = h('p', { class: 'dim' });
  const err = h('p', { class: 'error' });
  const map = h('div');
  const pick = h('div', { 'data-testid': 'route-pick' });
  const suspects = h('div', { 'data-testid': 'suspects' });
  const decisions = h('div');
  const check = h('div');
  const legend = h('div', { class: 'legend' },
    ...[0, 1e-4, 1e-3, 1e-2, 0.1, 0.5].map((x) => {
      const c = h('span', { class: 'hcell' });
      c.style.backgroundColor = lossColour(x);
      return [c, pct(x)];
    }), h('span', { class: 'hcell none' }), 'no data');
  replace(root, h('div', { class: 'title' }, h('h1', {}, 'Route health')), info, err,
    panel('Route check (static routes)', check),
    panel('Suspects', suspects, pick),
    panel('Leaf × leaf loss', legend, map),
    panel('Cursed-path decisions (24 h)', decisions));
  let last = null;

  function showSuspects(filterA, filterB) {
    let list = last ? last.suspects : [];
    if (filterA) {
      const touches = (s) => s.links.some((l) => [l.from.node, l.to.node].some((n) => n === filterA || n === filterB));
      list = list.filter(touches);
    }
    replace(suspects, table(['#', 'link(s)', 'loss', 'score', 'bad / good obs', 'sample bad pairs', ''],
      suspectRows(list), filterA ? 'no suspect touches these leaves' : 'no suspects: every route is clean'));
  }

  async function refresh() {
    try {
      replace(check, routeCheck(await api('/routes/check')));
    } catch (e) {
      err.textContent = e.message;
    }
    try {
      const [s, m] = await Promise.all([api('/suspects'), api('/routes/health')]);
      last = s;
      replace(info, `${s.observations} observations over ${s.rounds} probe round(s)` +
        (s.posted ? `, ${s.posted} posted` : '') + ', localized ', timeCell(s.time));
      err.textContent = '';
      showSuspects();
      replace(map, heatmap(m, (a, b, loss) => {
        replace(pick, h('p', { class: 'dim' }, `${a} → ${b}: loss ${pct(loss)}. `,
          h('button', { class: 'link', onclick: () => { replace(pick); showSuspects(); } }, 'show all')));
        showSuspects(a, b);
      }));
    } catch (e) {
      if (e.status === 404) replace(info, e.message);
      else err.textContent = e.message;
    }
    try {
      const { items } = await byId('/decisions?since=24h&limit=1000', 'decisions', { pages: 20 });
      const mine = items.filter((x) => x.rule === 'cursed_path').reverse();
      replace(decisions, table(['time', 'link', 'action', 'reason'], decisionRows(mine), 'none'));
    } catch (e) {
      err.textContent = e.message;
    }
  }
  refresh();
  const timer = setInterval(() => { if (!document.hidden) refresh(); }, 5000);
  return {
    onLive: (type) => { if (type === 'decision') refresh(); },
    stop: () => clearInterval(timer),
  };
}

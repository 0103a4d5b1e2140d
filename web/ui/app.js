// app.js: the dashboard's shell. Signs in (token in this tab only), keeps the header's health
// badges fresh, routes "#/..." to a view, and fans the live feed out to the current view.
// Views (view_*.js) export render(root, ctx, params) and may return {onLive(type, data), stop()}.
import { api, ApiFailure, fabric, openStream, setFabric, setToken, token } from './api.js';
import { badge, h, replace, showBanner } from './ui.js';
import * as overview from './view_overview.js';
import * as ports from './view_ports.js';
import * as orders from './view_orders.js';
import * as audit from './view_audit.js';
import * as port from './view_port.js';
import * as routesView from './view_routes.js';
import { Feed } from './feed.js';

const routes = [
  [/^#?\/?$/, overview, 'overview'],
  [/^#\/ports$/, ports, 'ports'],
  [/^#\/orders$/, orders, 'orders'],
  [/^#\/orders\/(\d+)$/, orders, 'orders'],
  [/^#\/audit$/, audit, 'audit'],
  [/^#\/routes$/, routesView, 'routes'],
  [/^#\/port\/([^/]+)\/([^/]+)$/, port, 'ports'],
];

const ctx = {
  who: { role: 'none', can_operate: false, can_force: false, read_only: true },
  feed: new Feed(),
  confirm: confirmAction,
  go: (hash) => { location.hash = hash; },
};
let current = null;
let stopStream = null;

// The confirm dialog for port actions: resolves {reason, force} or null when cancelled.
function confirmAction(title, text, { allowForce = false, onSubmit } = {}) {
  const dlg = document.getElementById('confirm');
  const form = document.getElementById('confirm-form');
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-error').textContent = '';
  document.getElementById('confirm-force-row').hidden = !(allowForce && ctx.who.can_force);
  form.reason.value = '';
  form.force.checked = false;
  form.onsubmit = async (ev) => {
    ev.preventDefault();
    const reason = form.reason.value.trim();
    if (!reason) return;
    try {
      await onSubmit({ reason, force: form.force.checked });
      dlg.close();
    } catch (e) {
      document.getElementById('confirm-error').textContent = e.message;
    }
  };
  document.getElementById('confirm-cancel').onclick = () => dlg.close();
  dlg.showModal();
  form.reason.focus();
}

// One line about a fabric's leader: "leader host-a" (lease expired: "no live leader, last
// host-a"), or '' without HA (SQLite: one instance, no lease).
function leaderText(leader, expires) {
  if (!leader) return '';
  if (expires && Date.parse(expires) < Date.now()) return `no live leader (last ${leader})`;
  return `leader ${leader}`;
}

// The fabric selector: every fabric in the store, with its leader; hidden with one fabric.
// Choosing one reloads the page with ?fabric=NAME (every API call then asks about it).
async function loadFabrics(shown) {
  const list = await api('/fabrics');
  const pick = document.getElementById('fabric-pick');
  const sel = document.getElementById('fabric');
  pick.hidden = list.length < 2;
  sel.disabled = list.length < 2;
  replace(sel, list.map((f) => {
    const lead = leaderText(f.leader, f.lease_expires);
    const o = h('option', { value: f.name }, f.name + (lead ? ` (${lead})` : ''));
    if (f.name === shown) o.selected = true;
    return o;
  }));
  sel.onchange = () => setFabric(sel.value);
}

// The subnet manager in the header: the master (GUID, LID), "no master SM" (automatic port
// actions are held) or "SM unknown"; hidden when the watcher is off.
function showSm(sm) {
  const el = document.getElementById('sm');
  el.hidden = !sm || sm.watch !== 'on';
  if (el.hidden) return;
  const m = sm.master;
  el.textContent = m ? `SM ${m.guid} (LID ${m.lid})${sm.standby.length ? ` +${sm.standby.length} standby` : ''}`
    : sm.status === 'no_master' ? 'no master SM: actions held' : 'SM unknown: actions held';
  el.className = 'badge ' + (m ? 'ok' : 'down');
  el.title = m ? `master since ${m.since}; last sweep ${sm.last_sweep || 'unknown'}; failovers ${sm.failovers}`
    : (sm.detail || '');
}

let fabricsLoaded = false;
async function refreshHealth() {
  try {
    const hl = await api('/health');
    const info = document.getElementById('fabric-info');
    const lead = leaderText(hl.leader, hl.lease_expires);
    info.textContent = hl.fabric ? `${hl.fabric}${lead ? ' · ' + lead : ''}` : '';
    if (!fabricsLoaded && hl.fabric) {
      fabricsLoaded = true;
      loadFabrics(fabric() || hl.fabric).catch(() => { fabricsLoaded = false; });
    }
    const el = document.getElementById('health');
    el.textContent = hl.status;
    el.className = 'badge ' + hl.status;
    const srcs = Object.entries(hl.sources).filter(([, s]) => s.status !== 'disabled')
      .map(([name, s]) => {
        const b = badge(`${name}: ${s.status}`, s.status);
        b.title = (s.detail || '') + (s.last_ok ? ` (last ok ${s.last_ok})` : '');
        return b;
      });
    replace(document.getElementById('sources'), srcs);
    showSm(hl.subnet_manager);
    if (!document.getElementById('banner').classList.contains('info')) showBanner(null);
    if (!stopStream) boot();  // the daemon was down when the page loaded: start now
  } catch (e) {
    if (e instanceof ApiFailure && e.status === 401) return signIn('Your token was not accepted.');
    showBanner(e.message);
  }
}

async function loadWho() {
  ctx.who = await api('/whoami');
  const who = document.getElementById('who');
  who.textContent = ctx.who.authenticated
    ? `${ctx.who.role}${ctx.who.read_only ? ' (read-only)' : ''}` : 'read-only (no tokens configured)';
  document.getElementById('logout').hidden = !token();
}

function signIn(message) {
  const dlg = document.getElementById('login');
  const form = document.getElementById('login-form');
  document.getElementById('login-error').textContent = message || '';
  if (dlg.open) return;
  form.token.value = '';
  form.onsubmit = async (ev) => {
    ev.preventDefault();
    setToken(form.token.value.trim());
    try {
      await loadWho();
      dlg.close();
      start();
    } catch (e) {
      setToken('');
      document.getElementById('login-error').textContent =
        e.status === 401 ? 'Unknown token.' : e.message;
    }
  };
  dlg.showModal();
}

function route() {
  if (current && current.stop) current.stop();
  if (document.getElementById('banner').classList.contains('info')) showBanner(null);
  current = null;
  const hash = location.hash || '#/';
  for (const [re, view, nav] of routes) {
    const m = hash.match(re);
    if (!m) continue;
    for (const a of document.querySelectorAll('header nav a'))
      a.classList.toggle('active', a.dataset.view === nav);
    let params;
    try {
      params = m.slice(1).map(decodeURIComponent);
    } catch {
      break;  // a malformed escape: no such page
    }
    const root = replace(document.getElementById('view'));
    current = view.render(root, ctx, params) || null;
    return;
  }
  replace(document.getElementById('view'), h('p', { class: 'empty' }, 'No such page. ',
    h('a', { href: '#/' }, 'Overview')));
}

function start() {
  if (stopStream) stopStream();
  let wasDown = false;
  stopStream = openStream((type, data) => {
    ctx.feed.add(type, data);
    if (current && current.onLive) current.onLive(type, data);
  }, (state) => {
    if (state === 'unauthorized') signIn('Sign in to see the fabric.');
    if (state === 'reconnecting') wasDown = true;
    if (state === 'live' && wasDown) {  // changes made while away are not replayed: reload
      wasDown = false;
      ctx.feed.reload();
      route();
    }
    ctx.feed.setState(state);
  });
  refreshHealth();
  route();
}

let booted = false;
async function boot() {
  if (!booted) {
    booted = true;
    document.getElementById('logout').onclick = () => { setToken(''); location.reload(); };
    window.addEventListener('hashchange', route);
    setInterval(refreshHealth, 5000);
  }
  try {
    await loadWho();
    start();
  } catch (e) {
    if (e instanceof ApiFailure && e.status === 401) signIn();
    else showBanner(e.message);
  }
}

boot();

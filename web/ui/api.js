// api.js: the dashboard's only door to the daemon. JSON calls to /api/v1 (about the fabric
// selected in the URL, ?fabric=) with the bearer
// token kept in sessionStorage (never a cookie, never in a URL), and the live feed read from
// /api/v1/stream with fetch() (EventSource cannot send an Authorization header), resumed after
// a drop with Last-Event-ID.

const kTokenKey = 'ibwarden.token';

// The fabric shown (many fabrics in one store): kept in the page's URL as ?fabric=NAME, so a
// link or a reload shows the same one, and added to every API call. '' = the instance's own.
export function fabric() { return new URLSearchParams(location.search).get('fabric') || ''; }
export function setFabric(name) {
  const q = new URLSearchParams(location.search);
  if (name) q.set('fabric', name); else q.delete('fabric');
  const search = q.toString();
  location.search = search ? '?' + search : '';  // reloads: every view and the feed start over
}
// path (relative to /api/v1) with ?fabric= (or &fabric=) when a fabric is selected.
export function withFabric(path) {
  const f = fabric();
  if (!f) return path;
  return path + (path.includes('?') ? '&' : '?') + 'fabric=' + encodeURIComponent(f);
}

export class ApiFailure extends Error {
  constructor(status, message, data) {
    super(message);
    this.status = status;
    this.data = data;  // the parsed body: a port action's 409/502 answer is its decision
  }
}

export function token() { return sessionStorage.getItem(kTokenKey) || ''; }
export function setToken(t) {
  if (t) sessionStorage.setItem(kTokenKey, t); else sessionStorage.removeItem(kTokenKey);
}

function headers(extra) {
  const h = Object.assign({ Accept: 'application/json' }, extra || {});
  const t = token();
  if (t) h.Authorization = 'Bearer ' + t;
  return h;
}

// GET/POST/PATCH path (relative to /api/v1) and return the parsed JSON. Throws ApiFailure with
// the server's {"error": ...} message, or status 0 when the daemon is unreachable.
export async function api(path, { method = 'GET', body } = {}) {
  let res;
  try {
    res = await fetch('/api/v1' + withFabric(path), {
      method,
      headers: headers(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      body: body !== undefined ? JSON.stringify(body) : undefined,
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiFailure(0, 'ibwarden is unreachable (' + e.message + ')');
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  if (!res.ok) {
    const msg = data && data.error ? data.error
      : data && data.reason ? `${data.status}: ${data.reason}` : `HTTP ${res.status}`;
    throw new ApiFailure(res.status, msg, data);
  }
  return data;
}

// Every port, following next_offset (the server caps a page at 5,000).
export async function allPorts(filter = '') {
  const out = [];
  let offset = 0;
  for (;;) {
    const page = await api(`/ports?limit=5000&offset=${offset}${filter}`);
    out.push(...page.ports);
    if (page.next_offset === null || page.next_offset === undefined) return out;
    offset = page.next_offset;
  }
}

// Pages through /events, /decisions or /workorders (oldest first, by after_id until `more`
// is false, at most `pages` pages) and returns the newest `keep` items of `key`, with
// truncated = true when older ones were dropped.
export async function byId(path, key, { keep = Infinity, pages = 50 } = {}) {
  let after = 0, items = [], truncated = false;
  for (let i = 0; i < pages; ++i) {
    const r = await api(`${path}${after ? '&after_id=' + after : ''}`);
    items = items.concat(r[key]);
    if (items.length > keep) { items = items.slice(-keep); truncated = true; }
    if (!r.more) break;
    after = r.last_id;
  }
  return { items, truncated };
}

export function portPath(node, port) {
  return `/ports/${encodeURIComponent(node)}/${encodeURIComponent(port)}`;
}

// The live feed. onMessage(type, data) for each "event", "decision" and "workorder" message;
// onState('live'|'reconnecting'|'unauthorized'); after 'reconnecting', the next 'live' means
// messages may have been missed (work-order changes are not replayed): reload views then.
// Returns stop().
export function openStream(onMessage, onState) {
  let lastId = '';
  let stopped = false;
  let controller = null;
  let lastByte = Date.now();
  // The server sends a keep-alive after 15 s of silence: nothing for 45 s means a dead
  // connection (VPN drop, laptop sleep) that TCP has not noticed. Abort and reconnect.
  const watchdog = setInterval(() => {
    if (controller && Date.now() - lastByte > 45000) controller.abort();
  }, 5000);
  async function once() {
    controller = new AbortController();
    const h = headers({ Accept: 'text/event-stream' });
    if (lastId) h['Last-Event-ID'] = lastId;
    lastByte = Date.now();
    const res = await fetch('/api/v1' + withFabric('/stream'),
      { headers: h, signal: controller.signal, cache: 'no-store' });
    if (res.status === 401) { onState('unauthorized'); return false; }
    if (!res.ok || !res.body) throw new Error('HTTP ' + res.status);
    onState('live');
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return true;
      lastByte = Date.now();
      buf += value.replace(/\r\n?/g, '\n');
      let cut;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        let type = 'message', data = '', id = null;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') type = val;
          else if (field === 'data') data += (data ? '\n' : '') + val;
          else if (field === 'id') id = val;
        }
        if (id !== null) lastId = id;
        if (!data) continue;
        try { onMessage(type, JSON.parse(data)); } catch { /* a message we cannot read */ }
      }
    }
  }
  (async () => {
    let delay = 1000;
    while (!stopped) {
      try {
        if (!(await once())) return;
        delay = 1000;
      } catch (e) {
        if (stopped) return;
      }
      onState('reconnecting');
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 15000);
    }
  })();
  return () => { stopped = true; clearInterval(watchdog); if (controller) controller.abort(); };
}

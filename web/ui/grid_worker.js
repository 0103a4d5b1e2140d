// grid_worker.js: fetches and parses the port grid's pages off the main thread (a page of 500
// ports is ~750 KB of JSON: parsing it in the page cost frames while scrolling). Each message
// {id, path, token} is answered {id, total, ports} with every port cut down to what a cell,
// its tooltip and its link use, or {id, failed: true}: the page then asks api() itself, which
// reports the error as everywhere else.
import { kErrorCounters } from './ui.js';

function slim(p) {
  const rates = {};
  for (const c of kErrorCounters) if (p.rates && p.rates[c]) rates[c] = p.rates[c];
  return {
    node: p.node, port: p.port, state: p.state, phys_state: p.phys_state,
    disabled_by_ibwarden: p.disabled_by_ibwarden, cable_id: p.cable_id, width: p.width,
    speed: p.speed, peer_node: p.peer_node, peer_port: p.peer_port, rates,
  };
}

self.onmessage = async (e) => {
  const { id, path, token } = e.data;
  try {
    const headers = { Accept: 'application/json' };
    if (token) headers.Authorization = 'Bearer ' + token;
    const res = await fetch('/api/v1' + path, { headers, cache: 'no-store' });
    if (!res.ok) { self.postMessage({ id, failed: true }); return; }
    const page = await res.json();
    self.postMessage({ id, total: page.total, ports: page.ports.map(slim) });
  } catch {
    self.postMessage({ id, failed: true });
  }
};

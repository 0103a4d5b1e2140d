// grid_pages.js: fetches one page of the port grid (view_ports.js), GET /api/v1/ports with a
// limit and an offset, through a Web Worker (grid_worker.js) that parses the ~750 KB of JSON
// off the main thread; the page's own api() when there is no worker or the worker could not
// get it (api() then reports the error as everywhere else). One worker for the dashboard,
// started at the first use.
import { api, token, withFabric } from './api.js';

let worker = null, nextId = 0;
const waiting = new Map();  // message id -> {path, resolve}

// A promise of {total, ports} for `path` (an API path such as "/ports?limit=500&offset=0").
export function page(path) {
  if (worker === null) {
    try {
      worker = new Worker(new URL('./grid_worker.js', import.meta.url), { type: 'module' });
      worker.onmessage = (e) => {
        const w = waiting.get(e.data.id);
        waiting.delete(e.data.id);
        if (w) w.resolve(e.data.failed ? api(w.path) : { total: e.data.total, ports: e.data.ports });
      };
      worker.onerror = () => {  // no worker after all: whatever it had left goes to api()
        worker = false;
        for (const w of waiting.values()) w.resolve(api(w.path));
        waiting.clear();
      };
    } catch {
      worker = false;
    }
  }
  if (!worker) return api(path);
  return new Promise((resolve) => {
    const id = ++nextId;
    waiting.set(id, { path, resolve });
    worker.postMessage({ id, path: withFabric(path), token: token() });
  });
}

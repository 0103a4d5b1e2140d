// actions.js: the operator's overrides, shared by the views. Each asks for a reason in the
// confirm dialog and goes through the daemon's guard (POST .../disable|enable); the
// decision the daemon returns is shown in the banner.
import { api, portPath } from './api.js';
import { h, showBanner } from './ui.js';

function outcome(d, verb) {
  const kind = d.status === 'executed' ? 'info' : '';
  showBanner(`${verb} ${d.node}/${d.port}: ${d.status}${d.reason ? ' (' + d.reason + ')' : ''}`, kind);
}

export function enableButton(ctx, node, port, done) {
  if (!ctx.who.can_operate) return '';
  return h('button', {
    class: 'primary', 'data-testid': 'enable-button', dataset: { port: `${node}/${port}` },
    onclick: () => ctx.confirm(`Enable ${node}/${port}`,
      'Brings the link back up and resolves its work order. Say what was done to it.',
      {
        allowForce: true,
        onSubmit: async ({ reason, force }) => {
          const d = await api(portPath(node, port) + '/enable', { method: 'POST', body: { reason, force } });
          outcome(d, 'enable');
          if (done) done(d);
        },
      }),
  }, 'Enable');
}

export function disableButton(ctx, node, port, done) {
  if (!ctx.who.can_operate) return '';
  return h('button', {
    class: 'danger', 'data-testid': 'disable-button', dataset: { port: `${node}/${port}` },
    onclick: () => ctx.confirm(`Disable ${node}/${port}`,
      'The guard still applies: it refuses to cut a host or a leaf off the fabric.',
      {
        allowForce: true,
        onSubmit: async ({ reason, force }) => {
          const d = await api(portPath(node, port) + '/disable', { method: 'POST', body: { reason, force } });
          outcome(d, 'disable');
          if (done) done(d);
        },
      }),
  }, 'Disable');
}

// Calls fn at most once per `ms` while events keep arriving (the last call always runs).
export function debounce(fn, ms) {
  let timer = null;
  return () => {
    if (timer) return;
    timer = setTimeout(() => { timer = null; fn(); }, ms);
  };
}

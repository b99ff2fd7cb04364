import { SSE_FRAMES_JS } from './page-sse-script.js';

/**
 * The approval inbox (GET /inbox, docs/api.md): one server-sent HTML page with a small script, no
 * build chain. The signed-in principal's bearer token comes from the URL fragment (`#token=...`, never
 * sent to the server in a request line) or is pasted, and is kept in the tab's sessionStorage. The
 * page lists its tenant's runs that wait for a decision, shows each human request (summary, verified
 * facts, policy evidence, the proposed action, risks, the expiry counting down), offers approve and
 * reject (with a reason), and "Ask the requester" where the run offers `request_more_info`, only where
 * the service says the principal may decide, and follows each run's
 * public event stream to update live.
 */
export const INBOX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Approval inbox · agent-harness</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; background: #f5f6f8; color: #1d2433; }
  header { background: #1d2433; color: #fff; padding: 12px 20px; display: flex; gap: 16px; align-items: center; }
  header h1 { font-size: 18px; margin: 0; flex: 1; }
  main { max-width: 960px; margin: 20px auto; padding: 0 16px; }
  .card { background: #fff; border-radius: 8px; padding: 16px 20px; margin-bottom: 16px; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  .card h2 { font-size: 16px; margin: 0 0 6px; }
  .status { font-weight: 600; padding: 2px 8px; border-radius: 10px; background: #e8ecf3; }
  .status.succeeded { background: #d7f5dd; color: #17612a; }
  .status.failed, .status.cancelled { background: #fde0e0; color: #8a1c1c; }
  ul { margin: 4px 0 8px 18px; padding: 0; }
  .muted { color: #667085; font-size: 13px; }
  .actions { display: flex; gap: 8px; margin-top: 10px; align-items: center; }
  button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid #98a2b3; background: #fff; cursor: pointer; }
  button.approve { background: #17612a; color: #fff; border-color: #17612a; }
  input[type=text] { font: inherit; padding: 5px 8px; border: 1px solid #98a2b3; border-radius: 6px; flex: 1; }
  #who { font-size: 13px; }
  .answer { margin-left: 8px; font-size: 13px; }
</style>
</head>
<body>
<header><h1>Approval inbox</h1><span id="who">not signed in</span></header>
<main>
  <div id="signin" class="card" hidden>
    <p>Paste your bearer token (or open this page as <code>/inbox#token=&lt;jwt&gt;</code>).</p>
    <div class="actions"><input id="token" type="text" placeholder="eyJ..."><button id="use">Sign in</button></div>
  </div>
  <p id="empty" class="muted" hidden>Nothing waits for a decision in your tenant.</p>
  <div id="runs"></div>
</main>
<script>${SSE_FRAMES_JS}
(() => {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) { sessionStorage.setItem('harnessToken', fromHash); history.replaceState(null, '', location.pathname); }
  let token = sessionStorage.getItem('harnessToken');
  const $ = (id) => document.getElementById(id);
  const esc = (v) => String(v).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  const api = async (path, init = {}) => {
    const res = await fetch(path, { ...init, headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json', ...(init.headers || {}) } });
    const body = await res.json().catch(() => ({}));
    return { status: res.status, body };
  };
  const claims = () => { try { return JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))); } catch { return {}; } };
  const cards = new Map();

  function list(items) { return items && items.length ? '<ul>' + items.map((i) => '<li>' + esc(i) + '</li>').join('') + '</ul>' : '<p class="muted">none</p>'; }

  function render(card, run) {
    const req = run.humanRequest || {};
    const p = run.pendingAction;
    const waiting = run.executionStatus === 'RUNNING' && p && (p.kind === 'confirmation' || p.kind === 'human');
    card.el.dataset.status = run.status || '';
    // What the person typed survives a re-render (a live event may arrive while they type).
    const typed = card.el.querySelector('[data-role=reason]');
    const kept = typed ? typed.value : '';
    card.el.innerHTML =
      '<h2><a data-role="run-page" href="/runs/' + encodeURIComponent(run.runId) + '">' + esc(run.runId) + '</a> <span class="status ' + esc(run.status) + '" data-role="status">' + esc(run.status) + '</span></h2>' +
      '<div class="muted">' + esc(run.profile) + ' under ' + esc(run.policy) + ' · requested by ' + esc(run.user) + '</div>' +
      (waiting ? (
        '<h3>Request</h3><p data-role="summary">' + esc(req.requestSummary || '') + '</p>' +
        '<h3>Verified facts</h3>' + list(req.verifiedFacts) +
        '<h3>Policy evidence</h3>' + list(req.policyEvidence) +
        '<h3>Proposed action</h3><p><code>' + esc(p.tool || '') + '@' + esc(p.version || '') + '</code> <span class="muted">' + esc(req.proposedAction || '') + '</span></p>' +
        (run.proposedArguments ? '<pre data-role="arguments">' + esc(JSON.stringify(run.proposedArguments, null, 2)) + '</pre>' : '<p class="muted">arguments ' + esc(p.argsDigest || '') + '</p>') +
        '<h3>Risks</h3>' + list(req.riskReasons) +
        '<p class="muted">expires in <span data-role="expiry" data-expires="' + esc(p.expiresAt || req.expiresAt || '') + '"></span></p>' +
        (run.mayDecide
          ? '<div class="actions"><input type="text" data-role="reason" placeholder="reason, or your question"><button class="approve" data-role="approve">Approve</button><button data-role="reject">Reject</button>' +
            ((req.allowedDecisions || []).includes('request_more_info') ? '<button data-role="ask">Ask the requester</button>' : '') +
            '<span class="answer" data-role="answer"></span></div>'
          : '<p class="muted" data-role="no-decision">You may not decide this action.</p>')
      ) : '<p data-role="outcome">' + esc(run.status) + (run.terminalReason && run.terminalReason.message ? ': ' + esc(run.terminalReason.message) : '') + '</p>');
    const reason = card.el.querySelector('[data-role=reason]');
    if (reason) reason.value = kept;
    const answer = card.el.querySelector('[data-role=answer]');
    const send = async (decision) => {
      if (decision === 'request_more_info' && !reason.value.trim()) { answer.textContent = 'write your question first'; return; }
      const body = decision === 'request_more_info'
        ? { decision, actionId: p.actionId, question: reason.value }
        : { decision, actionId: p.actionId, ...(reason.value ? { reason: reason.value } : decision === 'reject' ? { reason: 'rejected in the inbox' } : {}) };
      const r = await api('/v1/runs/' + encodeURIComponent(run.runId) + '/decisions', { method: 'POST', body: JSON.stringify(body) });
      answer.textContent = r.body.accepted ? decision + ' accepted' : 'refused: ' + (r.body.code || (r.body.error && r.body.error.code) || r.status);
      refresh(run.runId);
    };
    const a = card.el.querySelector('[data-role=approve]');
    const j = card.el.querySelector('[data-role=reject]');
    if (a) a.onclick = () => send('approve');
    if (j) j.onclick = () => send('reject');
    const q = card.el.querySelector('[data-role=ask]');
    if (q) q.onclick = () => send('request_more_info');
    tick();
  }

  async function refresh(runId) {
    const card = cards.get(runId);
    const r = await api('/v1/runs/' + encodeURIComponent(runId));
    if (r.status === 200) render(card, r.body);
  }

  async function follow(runId) {
    let last = null;
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        const res = await fetch('/v1/runs/' + encodeURIComponent(runId) + '/events', { headers: { authorization: 'Bearer ' + token, accept: 'text/event-stream', ...(last !== null ? { 'last-event-id': last } : {}) } });
        if (!res.ok || !res.body) return;
        let ended = false;
        await sseFrames(res, (f) => {
          if (f.id !== null) last = f.id;
          const type = f.event;
          if (type === 'state.transitioned' || type.startsWith('human.') || type.startsWith('run.')) refresh(runId);
          ended = type === 'run.completed' || type === 'run.failed' || type === 'run.cancelled' || type === 'end';
          return ended;
        });
        if (ended) return;
      } catch { /* reconnect with Last-Event-ID */ }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  async function load() {
    const r = await api('/v1/runs?awaitingDecision=true');
    if (r.status === 401) { sessionStorage.removeItem('harnessToken'); token = null; return start(); }
    const runs = r.body.runs || [];
    for (const run of runs) {
      if (cards.has(run.runId)) continue;
      const el = document.createElement('div');
      el.className = 'card';
      el.dataset.run = run.runId;
      $('runs').appendChild(el);
      cards.set(run.runId, { el });
      await refresh(run.runId);
      follow(run.runId);
    }
    $('empty').hidden = cards.size > 0;
  }

  function tick() {
    for (const el of document.querySelectorAll('[data-role=expiry]')) {
      const ms = Date.parse(el.dataset.expires) - Date.now();
      el.textContent = Number.isFinite(ms) ? (ms <= 0 ? 'expired' : Math.floor(ms / 60000) + 'm ' + Math.floor((ms % 60000) / 1000) + 's') : 'no expiry';
    }
  }

  function start() {
    if (!token) {
      $('signin').hidden = false;
      $('use').onclick = () => { token = $('token').value.trim(); sessionStorage.setItem('harnessToken', token); $('signin').hidden = true; start(); };
      return;
    }
    const c = claims();
    $('who').textContent = (c.sub || '?') + ' · ' + (c.tenant || '?') + ' · ' + ((c.roles || []).join(', ') || 'no roles');
    load();
    setInterval(load, 5000);
    setInterval(tick, 1000);
  }
  start();
})();
</script>
</body>
</html>
`;

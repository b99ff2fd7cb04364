import { CONTEXT_PANEL_JS } from './run-page-context-script.js';
import { PLAN_PANEL_JS } from './run-page-plan-script.js';
import { SSE_FRAMES_JS } from './page-sse-script.js';

/**
 * The run page's script (see run-page.ts): reads the run, its invocations and its events through the
 * API with the caller's bearer token, and renders the header, the side effects ("Why was this
 * allowed?", "Did it happen once?"), route and plan decisions (run-page-plan-script.ts), the timeline
 * grouped by step with filters, the inspector (with the context a model call was sent,
 * run-page-context-script.ts) and the printable audit view. Every value goes through `esc` before it
 * is put into the page. Plain browser JavaScript, no backticks (it lives in a template literal).
 */
export const RUN_PAGE_SCRIPT = `${SSE_FRAMES_JS}
(() => {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) { sessionStorage.setItem('harnessToken', fromHash); history.replaceState(null, '', location.pathname); }
  let token = sessionStorage.getItem('harnessToken');
  const runId = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() || '');
  const $ = (id) => document.getElementById(id);
  const esc = (v) => String(v === undefined || v === null ? '' : v).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  const api = async (path) => {
    const res = await fetch(path, { headers: { authorization: 'Bearer ' + token } });
    return { status: res.status, body: await res.json().catch(() => ({})) };
  };
  const events = [];
  let run = null;
  let invocations = null;
  let selected = null;
  let pending = false;
  /** Revealed payloads by invocation seq (kept across live re-renders). */
  const payloads = {};
${CONTEXT_PANEL_JS}
${PLAN_PANEL_JS}

  const CATEGORY = (t) => t.startsWith('model.') ? 'model'
    : (t.startsWith('tool.') || t === 'recovery.decided') ? 'tool'
    : (t.startsWith('policy.') || t.startsWith('human.') || t.startsWith('obligation.')) ? 'decision'
    : (t.startsWith('route.') || t.startsWith('plan.') || t.startsWith('state.') || t.startsWith('step.') || t.startsWith('run.')) ? 'flow'
    : 'other';
  const failed = (e) => /\\.(failed|rejected|exhausted)$/.test(e.type) || e.data.status === 'failed' || e.data.status === 'rejected' || e.data.decision === 'deny' || e.data.decision === 'rejected';
  const codes = (d) => (d.reasonCodes || []).join(', ');

  function summary(e) {
    const d = e.data || {};
    switch (e.type) {
      case 'model.completed': return (d.purpose || '') + ' · tokens ' + esc((d.usage || {}).inputTokens) + ' in / ' + esc((d.usage || {}).outputTokens) + ' out · cost $' + esc(d.costUsd) + (d.context ? ' · context ' + esc(d.context.packageId) : '');
      case 'model.started': return esc(d.purpose) + ' on ' + esc(d.modelRoute);
      case 'tool.authorized': return esc(d.tool) + '@' + esc(d.version) + ' #' + esc(d.seq) + ' (' + esc(d.effect) + ')';
      case 'tool.completed': case 'tool.failed': return esc(d.tool) + ' #' + esc(d.seq) + ' ' + esc(d.status) + ' (attempt ' + esc(d.activityAttempt) + ')' + (d.errorCode ? ' ' + esc(d.errorCode) : '');
      case 'tool.proposed': return esc(d.tool);
      case 'recovery.decided': return esc(d.tool) + ' #' + esc(d.seq) + ' attempt ' + esc(d.attempt) + ': ' + esc(d.decision) + ' (' + esc(d.reason) + ')';
      case 'policy.decided': return esc(d.decision) + ' by ' + esc(d.policyVersion) + ' · ' + esc(codes(d));
      case 'human.requested': return esc((d.action || {}).kind) + ' for ' + esc((d.action || {}).tool);
      case 'human.decided': return esc(d.decision) + ' by ' + esc(d.actor) + (d.verified ? ' (signature verified)' : '') + (d.reason ? ' · ' + esc(d.reason) : '');
      case 'human.approval_recorded': return 'approval ' + esc(d.approvals) + '/' + esc(d.required) + ' by ' + esc(d.principal);
      case 'state.transitioned': return esc(d.fromStatus) + ' → ' + esc(d.toStatus);
      case 'route.decided': return esc(d.route) + ' · ' + esc(d.reasonCode);
      case 'plan.proposed': return 'plan ' + esc(d.planId) + ': ' + esc(((d.plan || {}).steps || []).length) + ' steps';
      case 'plan.admitted': return 'plan ' + esc(d.planId) + ' admitted · ' + esc((d.order || []).join(' → '));
      case 'plan.rejected': return 'plan ' + esc(d.planId || '(unreadable)') + ' rejected · ' + esc((d.violations || []).map((v) => v.code).join(', '));
      case 'plan.replanned': case 'plan.fallback': return esc(d.reasonCode) + (d.fallback ? ' → ' + esc(d.fallback) : '');
      case 'fact.recorded': return esc(d.name) + ' = ' + esc(d.value);
      case 'step.started': case 'step.completed': return esc(d.stepId);
      default: { const s = JSON.stringify(d); return esc(s.length > 140 ? s.slice(0, 140) + '…' : s); }
    }
  }

  /** Groups: a new one at each step (graph node or plan step), else at each model call of a goal run. */
  function groups() {
    const out = [];
    let cur = { title: 'Run start', events: [] };
    const hasSteps = events.some((e) => e.type === 'step.started' || e.type === 'plan.step_started');
    let turn = 0;
    for (const e of events) {
      const d = e.data || {};
      const opens = e.type === 'step.started' ? 'Step ' + d.stepId
        : e.type === 'plan.step_started' ? 'Plan step ' + d.stepId
        : (!hasSteps && e.type === 'model.started' && d.purpose !== 'route') ? 'Turn ' + (++turn)
        : null;
      if (opens) { if (cur.events.length) out.push(cur); cur = { title: opens, events: [] }; }
      cur.events.push(e);
    }
    if (cur.events.length) out.push(cur);
    return out;
  }

  function renderTimeline() {
    const on = new Set([...document.querySelectorAll('[data-filter]')].filter((c) => c.checked).map((c) => c.dataset.filter));
    $('timeline').innerHTML = groups().map((g) => {
      const rows = g.events.filter((e) => on.has(CATEGORY(e.type))).map((e) =>
        '<div class="ev' + (failed(e) ? ' bad' : '') + (selected === e.sequence ? ' sel' : '') + '" data-seq="' + esc(e.sequence) + '" data-type="' + esc(e.type) + '">' +
        '<span class="seq">#' + esc(e.sequence) + '</span><span>' + esc(e.type) + '</span><span>' + summary(e) + '</span></div>').join('');
      return '<div class="group"><h3>' + esc(g.title) + '</h3>' + (rows || '<span class="muted">(filtered)</span>') + '</div>';
    }).join('');
  }

  function inspect(seq) {
    selected = seq;
    const e = events.find((x) => x.sequence === seq);
    if (!e) return;
    $('inspector').innerHTML = '<div><b>' + esc(e.type) + '</b> #' + esc(e.sequence) + ' · ' + esc(e.occurredAt) + (e.redacted ? ' · <span class="muted">redacted by policy</span>' : '') + '</div>' +
      '<pre data-role="event-json">' + esc(JSON.stringify(e.data, null, 2)) + '</pre>' +
      (contextCall(e) !== null ? '<div id="context-view" class="panel" data-role="context">loading the context sent…</div>' : '');
    renderTimeline();
    if (contextCall(e) !== null) showContext(contextCall(e), false);
  }

  /** Each write the run authorized, with its policy decision, approvals and invocation. */
  function sideEffects() {
    const writes = events.filter((e) => e.type === 'tool.authorized' && e.data.effect === 'write');
    return writes.map((w) => {
      const d = w.data;
      const before = events.filter((e) => e.sequence < w.sequence);
      const policy = [...before].reverse().find((e) => e.type === 'policy.decided' && e.data.argsDigest === d.argsDigest && e.data.stage !== 'presentation');
      const requested = events.filter((e) => e.type === 'human.requested' && e.data.action && e.data.action.argsDigest === d.argsDigest);
      const actions = new Set(requested.map((e) => e.data.action.actionId));
      const decided = events.filter((e) => (e.type === 'human.decided' || e.type === 'human.approval_recorded') && actions.has(e.data.actionId));
      const outcomes = events.filter((e) => (e.type === 'tool.completed' || e.type === 'tool.failed' || e.type === 'recovery.decided') && e.data.seq === d.seq);
      const inv = invocations ? invocations.find((i) => i.seq === d.seq) : undefined;
      return { w, d, policy, decided, outcomes, inv };
    });
  }

  function renderEffects() {
    const list = sideEffects();
    $('effects-card').hidden = false;
    if (!list.length) { $('effects').innerHTML = '<p class="muted">This run authorized no write.</p>'; $('audit-body').innerHTML = '<p>No side effects.</p>'; return; }
    $('effects').innerHTML = list.map(({ d, policy, decided, outcomes, inv }) => {
      const applied = inv ? inv.results.filter((r) => r.status === 'succeeded').length : outcomes.filter((o) => o.data.status === 'succeeded').length;
      const why = policy
        ? '<p>' + esc(policy.data.decision) + ' by <code>' + esc(policy.data.policyVersion) + '</code>' + (policy.data.rules && policy.data.rules.source === 'bundle' ? ' (bundle ' + esc(policy.data.rules.bundle) + ')' : '') + ' · reason codes <code>' + esc(codes(policy.data)) + '</code>' + ((policy.data.obligations || []).length ? ' · obligations ' + esc(policy.data.obligations.join(', ')) : '') + '</p>'
        : '<p class="muted">No policy decision for these arguments is visible to you.</p>';
      const people = decided.length
        ? '<ul>' + decided.map((h) => '<li data-role="approval">' + summary(h) + (h.data.keyId ? ' · key ' + esc(h.data.keyId) : '') + (h.data.registryDigest ? ' · registry ' + esc(String(h.data.registryDigest).slice(0, 19)) + '…' : '') + '</li>').join('') + '</ul>'
        : '<p class="muted">No person was asked.</p>';
      const attempts = inv
        ? '<table><tr><th>attempt</th><th>intent recorded</th><th>worker</th><th>result</th><th>source</th></tr>' + inv.intents.map((i) => {
            const r = inv.results.find((x) => x.attempt === i.attempt);
            return '<tr><td>' + esc(i.attempt) + '</td><td>' + esc(i.recordedAt) + '</td><td>' + esc(i.workerIdentity) + '</td><td>' + esc(r ? r.status + (r.errorCode ? ' ' + r.errorCode : '') : 'none (outcome unknown)') + '</td><td>' + esc(r ? r.source : '') + '</td></tr>';
          }).join('') + '</table>'
        : '<p class="muted">Invocation records need an operator role; events: ' + outcomes.map((o) => summary(o)).join('; ') + '</p>';
      return '<div class="effect" data-role="effect" data-tool="' + esc(d.tool) + '"><h3>' + esc(d.tool) + '@' + esc(d.version) + ' · call #' + esc(d.seq) + '</h3>' +
        '<div class="panel" data-role="why"><h4>Why was this allowed?</h4>' + why + '<h4>Approvals</h4>' + people + '</div>' +
        '<div class="panel" data-role="once"><h4>Did it happen once?</h4><p>' + (applied <= 1 ? '<span class="ok" data-role="applied">applied ' + esc(applied) + ' time' + (applied === 1 ? '' : 's') + '</span>' : '<span class="no" data-role="applied">applied ' + esc(applied) + ' times</span>') +
        (inv ? ' · idempotency key <code data-role="key">' + esc(inv.idempotencyKey) + '</code> · arguments ' + esc(inv.argsDigest) : '') + '</p>' + attempts +
        (inv ? (payloads[d.seq] ? '<pre data-role="payload">' + esc(JSON.stringify(payloads[d.seq], null, 2)) + '</pre>' : '<button data-role="reveal-payload" data-seq="' + esc(d.seq) + '">Reveal arguments and result</button>') : '') + '</div></div>';
    }).join('');
    $('audit-body').innerHTML = '<table><tr><th>what</th><th>when</th><th>why allowed</th><th>who approved</th><th>outcome</th></tr>' + list.map(({ d, policy, decided, outcomes, w }) =>
      '<tr><td>' + esc(d.tool) + ' #' + esc(d.seq) + '</td><td>' + esc(w.occurredAt) + '</td><td>' + esc(policy ? policy.data.decision + ' ' + policy.data.policyVersion + ' ' + codes(policy.data) : '') + '</td><td>' + esc(decided.filter((h) => h.type === 'human.decided').map((h) => h.data.actor + ' ' + h.data.decision).join('; ')) + '</td><td>' + esc(outcomes.map((o) => o.data.status || o.type).join(', ')) + '</td></tr>').join('') + '</table>';
  }

  function renderHead() {
    $('title').textContent = 'Run ' + runId;
    const created = events.find((e) => e.type === 'run.created');
    const started = events.find((e) => e.type === 'state.transitioned' && e.data.toStatus === 'running');
    const queued = created && started ? (Date.parse(started.occurredAt) - Date.parse(created.occurredAt)) : null;
    $('head').hidden = false;
    $('head').innerHTML = '<h2>' + esc(run.profile) + ' <span class="status ' + esc(run.status) + '" data-role="status">' + esc(run.status) + '</span></h2><dl class="pins">' +
      '<dt>tenant</dt><dd>' + esc(run.tenant) + '</dd><dt>requested by</dt><dd data-role="requester">' + esc(run.user) + '</dd>' +
      '<dt>policy</dt><dd>' + esc(run.policy) + '</dd>' +
      (created ? Object.entries(created.data.versions || {}).map(([k, v]) => '<dt>' + esc(k) + '</dt><dd>' + esc(v) + '</dd>').join('') : '') +
      '<dt>created</dt><dd>' + esc(run.createdAt) + '</dd><dt>ended</dt><dd>' + esc(run.endedAt || '—') + '</dd>' +
      (queued !== null ? '<dt>queued</dt><dd>' + esc(queued) + ' ms before it ran</dd>' : '') +
      (run.terminalReason ? '<dt>terminal reason</dt><dd>' + esc(JSON.stringify(run.terminalReason)) + '</dd>' : '') + '</dl>';
  }

  function render() {
    pending = false;
    if (!run) return;
    renderHead(); renderEffects(); renderPlan(); renderTimeline();
    $('timeline-card').hidden = false; $('inspector-card').hidden = false;
  }
  const schedule = () => { if (!pending) { pending = true; setTimeout(render, 100); } };

  async function follow(view) {
    let last = events.length ? events[events.length - 1].sequence : null;
    for (;;) {
      try {
        const res = await fetch('/v1/runs/' + encodeURIComponent(runId) + '/events?view=' + view, { headers: { authorization: 'Bearer ' + token, accept: 'text/event-stream', ...(last !== null ? { 'last-event-id': String(last) } : {}) } });
        if (res.status === 403 && view === 'internal') return follow('public');
        if (!res.ok) return;
        await sseFrames(res, (f) => {
          if (!f.data) return false;
          try {
            const e = JSON.parse(f.data);
            if (e.sequence === undefined) e.sequence = e.seq;
            if (typeof e.sequence !== 'number') return false;
            last = e.sequence;
            if (typeof e.type !== 'string' || events.some((x) => x.sequence === e.sequence)) return false;
            e.data = e.data || {};
            events.push(e); schedule();
          } catch {}
          return false;
        });
        const again = await api('/v1/runs/' + encodeURIComponent(runId));
        if (again.status === 200) { run = again.body; schedule(); if (run.executionStatus !== 'RUNNING') { verify(); return; } }
      } catch {}
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  /** The verifier's report (operators): the badge, one line per check. */
  async function verify() {
    const r = await api('/v1/runs/' + encodeURIComponent(runId) + '/verification');
    $('proof').hidden = false;
    $('verify-command').textContent = 'harness verify ' + runId;
    const badge = $('badge');
    if (r.status !== 200) {
      badge.className = 'status'; badge.textContent = 'not available';
      $('checks').innerHTML = '<p class="muted">' + esc((r.body.error && r.body.error.message) || ('HTTP ' + r.status)) + '</p>';
      $('export').hidden = true;
      return;
    }
    badge.className = 'status ' + (r.body.ok ? 'verified' : 'unverified');
    badge.textContent = r.body.ok ? 'verified' : 'verification failed';
    $('checks').innerHTML = '<table>' + (r.body.checks || []).map((c) =>
      '<tr data-role="check" data-ok="' + esc(c.ok) + '"><td class="' + (c.ok ? 'ok' : 'no') + '">' + (c.ok ? 'PASS' : 'FAIL') + '</td><td>' + esc(c.check) + '</td><td><code>' + esc(c.code) + '</code></td><td>' + esc(c.detail) + '</td></tr>').join('') + '</table>';
  }

  async function exportBundle() {
    const res = await fetch('/v1/runs/' + encodeURIComponent(runId) + '/bundle', { headers: { authorization: 'Bearer ' + token } });
    if (!res.ok) { $('checks').insertAdjacentHTML('afterbegin', '<p class="no">export failed: HTTP ' + esc(res.status) + '</p>'); return; }
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url; a.download = runId.replace(/[^A-Za-z0-9._-]/g, '_') + '.proof.json';
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  async function load() {
    $('signin').hidden = true;
    const r = await api('/v1/runs/' + encodeURIComponent(runId));
    if (r.status !== 200) { $('error').hidden = false; $('error').textContent = (r.body.error && r.body.error.message) || ('HTTP ' + r.status); if (r.status === 401) $('signin').hidden = false; return; }
    run = r.body;
    $('who').textContent = 'tenant ' + (run.tenant || '');
    const inv = await api('/v1/runs/' + encodeURIComponent(runId) + '/invocations');
    if (inv.status === 200) invocations = inv.body.invocations;
    render();
    verify();
    follow('internal');
  }

  $('effects').addEventListener('click', async (ev) => {
    const btn = ev.target.closest('[data-role=reveal-payload]');
    if (!btn) return;
    const r = await api('/v1/runs/' + encodeURIComponent(runId) + '/invocations/' + encodeURIComponent(btn.dataset.seq) + '/payload');
    payloads[btn.dataset.seq] = r.status === 200 ? { args: r.body.args, results: r.body.results } : { error: (r.body.error && r.body.error.message) || ('HTTP ' + r.status) };
    renderEffects();
  });
  $('timeline').addEventListener('click', (ev) => { const row = ev.target.closest('.ev'); if (row) inspect(Number(row.dataset.seq)); });
  document.querySelectorAll('[data-filter]').forEach((c) => c.addEventListener('change', renderTimeline));
  $('first-failure').addEventListener('click', () => {
    const f = events.find(failed);
    if (!f) { $('inspector').textContent = 'No failure in this run.'; return; }
    const box = document.querySelector('[data-filter="' + CATEGORY(f.type) + '"]'); if (box) box.checked = true;
    inspect(f.sequence);
    const row = document.querySelector('.ev[data-seq="' + f.sequence + '"]'); if (row) row.scrollIntoView({ block: 'center' });
  });
  $('print').addEventListener('click', () => window.print());
  $('export').addEventListener('click', exportBundle);
  $('copy').addEventListener('click', () => { if (navigator.clipboard) navigator.clipboard.writeText($('verify-command').textContent).catch(() => {}); });
  $('use').addEventListener('click', () => { token = $('token').value.trim(); sessionStorage.setItem('harnessToken', token); load(); });
  if (token) load(); else $('signin').hidden = false;
})();
`;

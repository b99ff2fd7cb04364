/**
 * The run page's "Context sent" panel (see run-page-script.ts, inside whose scope it runs: it uses
 * `esc`, `api`, `$` and `runId`): for a selected `model.completed`, the package that model call was
 * sent (GET /v1/runs/<id>/context/<N>): each item's kind, trust, access label, source and tokens,
 * what was left out and why, the budget, and a "Reveal content" button (secrets masked by the API,
 * `restricted` items withheld). Every value goes through `esc`. Plain browser JavaScript, no backticks.
 */
export const CONTEXT_PANEL_JS = `
  function contextTable(p) {
    const rows = p.items.map((i) => '<tr data-role="context-item" data-kind="' + esc(i.kind) + '" data-trust="' + esc(i.trust) + '">' +
      '<td>' + esc(i.kind) + (i.role ? ' (' + esc(i.role) + ')' : '') + '</td><td>' + esc(i.trust) + '</td><td>' + esc(i.access) + '</td><td>' + esc(i.sourceRef) +
      (i.summaryOf ? '<br><span class="muted">summary of ' + esc(i.summaryOf) + '</span>' : '') +
      (i.withheldOf ? '<br><span class="muted">stands for withheld ' + esc(i.withheldOf) + '</span>' : '') +
      (i.guardrail ? '<br><span class="no">' + esc(i.guardrail.verdict) + ' ' + esc(i.guardrail.reasonCodes.join(', ')) + '</span>' : '') +
      '</td><td>' + esc(i.tokens) + '</td></tr>' +
      (p.revealed ? '<tr><td colspan="5"><pre data-role="context-content">' + (i.contentWithheld ? 'withheld by policy (' + esc(i.contentWithheld) + ')' : esc(i.content)) + '</pre></td></tr>' : '')).join('');
    const left = p.leftOut.length
      ? '<ul>' + p.leftOut.map((o) => '<li data-role="left-out">' + esc(o.itemId) + ': ' + esc(o.reason) + '</li>').join('') + '</ul>'
      : '<p class="muted">Nothing valid was left out.</p>';
    return '<h4>Context sent</h4><p data-role="context-budget">' + esc(p.packageId) + ' · ' + esc(p.totalTokens) + ' of ' + esc(p.availableTokens) + ' tokens' +
      (p.route ? ' · route ' + esc(p.route) : '') + (p.tokenizer ? ' · ' + esc(p.tokenizer) : '') + '</p>' +
      '<table><tr><th>kind</th><th>trust</th><th>access</th><th>source</th><th>tokens</th></tr>' + rows + '</table>' +
      '<h4>Left out</h4>' + left +
      (p.expired.length ? '<p>Expired: ' + esc(p.expired.join(', ')) + '</p>' : '') +
      (p.omittedTurns ? '<p>Oldest turns cut for the budget: calls ' + esc(p.omittedTurns.firstCall) + '–' + esc(p.omittedTurns.lastCall) + ' (' + esc(p.omittedTurns.items) + ' items)</p>' : '') +
      (p.revealed ? '' : '<button id="reveal-context">Reveal content</button>');
  }

  async function showContext(call, reveal) {
    const box = $('context-view');
    if (!box) return;
    const r = await api('/v1/runs/' + encodeURIComponent(runId) + '/context/' + call + (reveal ? '?reveal=content' : ''));
    if ($('context-view') !== box) return;
    if (r.status !== 200) { box.innerHTML = '<p class="muted">Context: ' + esc((r.body.error && r.body.error.message) || ('HTTP ' + r.status)) + '</p>'; return; }
    box.innerHTML = contextTable(r.body);
    const btn = $('reveal-context');
    if (btn) btn.addEventListener('click', () => showContext(call, true));
  }

  /** The call number of a model.completed event's context package, or null. */
  const contextCall = (e) => {
    const id = e.type === 'model.completed' && e.data.context ? String(e.data.context.packageId || '') : '';
    const m = /:ctx(\\d+)$/.exec(id);
    return m ? Number(m[1]) : null;
  };
`;

/**
 * The run page's "Route and plan" card (see run-page-script.ts, inside whose scope it runs: it uses
 * `esc`, `$` and `events`): for a routed run, each domain route decision (`route.decided` of kind
 * `domain`: the route, who decided, the reason code, the candidates and why each excluded domain was
 * excluded); for a planned run, each plan as proposed with its steps (capability, objective,
 * dependencies, gate), whether it was admitted or rejected (with each violation's code), every step's
 * outcome and reason code, and each replan or fallback with its reason. Hidden for runs with neither.
 * Every value goes through `esc`. Plain browser JavaScript, no backticks.
 */
export const PLAN_PANEL_JS = `
  function routeRows() {
    return events.filter((e) => e.type === 'route.decided' && e.data.kind === 'domain').map((e) => {
      const d = e.data;
      const excluded = (d.exclusions || []).map((x) => esc(x.domain) + ' (' + esc(x.reasonCode) + (x.facts && x.facts.length ? ': ' + esc(x.facts.join(', ')) : '') + ')').join('; ');
      return '<tr data-role="route" data-route="' + esc(d.route) + '"><td>#' + esc(e.sequence) + '</td><td><b>' + esc(d.route) + '</b>' + (d.stepId ? ' <span class="muted">step ' + esc(d.stepId) + '</span>' : '') + '</td><td>' + esc(d.decidedBy) + (d.proposed ? ' (proposed ' + esc(d.proposed) + ')' : '') + '</td><td><code>' + esc(d.reasonCode) + '</code></td><td>' + esc((d.candidateCapabilities || []).join(', ')) + '</td><td>' + (excluded || '—') + '</td></tr>';
    }).join('');
  }

  function planBlocks() {
    const proposed = events.filter((e) => e.type === 'plan.proposed' && e.data.plan);
    return proposed.map((p) => {
      const plan = p.data.plan;
      const verdict = events.find((e) => (e.type === 'plan.admitted' || e.type === 'plan.rejected') && e.data.planId === plan.planId && e.sequence > p.sequence);
      const status = !verdict ? '<span class="muted">not yet admitted</span>'
        : verdict.type === 'plan.admitted' ? '<span class="ok" data-role="plan-verdict">admitted</span> · order ' + esc((verdict.data.order || []).join(' → '))
        : '<span class="no" data-role="plan-verdict">rejected</span> · ' + esc((verdict.data.violations || []).map((v) => v.code).join(', '));
      const outcome = (step) => {
        const done = events.filter((e) => e.type === 'plan.step_completed' && e.data.planId === plan.planId && e.data.stepId === step.stepId);
        return done.length ? done.map((d) => (d.data.outcome === 'succeeded' ? '<span class="ok">' : '<span class="no">') + esc(d.data.outcome) + '</span> <code>' + esc(d.data.reasonCode) + '</code> (attempt ' + esc(d.data.attempt) + ')').join('<br>') : '<span class="muted">not run</span>';
      };
      const steps = (plan.steps || []).map((s) => '<tr data-role="plan-step" data-step="' + esc(s.stepId) + '"><td>' + esc(s.stepId) + '</td><td>' + esc(s.capability) + '</td><td>' + esc(s.objective) + '</td><td>' + esc((s.dependencies || []).join(', ') || '—') + '</td><td>' + esc(s.gate || '—') + '</td><td>' + outcome(s) + '</td></tr>').join('');
      return '<div class="panel" data-role="plan" data-plan="' + esc(plan.planId) + '"><h4>Plan ' + esc(plan.planId) + ': ' + esc(plan.goal) + '</h4><p>' + status + '</p>' +
        '<table><tr><th>step</th><th>capability</th><th>objective</th><th>after</th><th>gate</th><th>outcome</th></tr>' + steps + '</table></div>';
    }).join('');
  }

  function renderPlan() {
    const routes = routeRows();
    const plans = planBlocks();
    const turns = events.filter((e) => e.type === 'plan.replanned' || e.type === 'plan.fallback' || (e.type === 'plan.rejected' && !e.data.planId));
    if (!routes && !plans && !turns.length) { $('plan-card').hidden = true; return; }
    $('plan-card').hidden = false;
    $('plan-body').innerHTML = (plans || '') +
      (turns.length ? '<ul>' + turns.map((e) => '<li data-role="replan">' + esc(e.type) + ' · <code>' + esc(e.data.reasonCode || ((e.data.violations || [])[0] || {}).code) + '</code>' + (e.data.fallback ? ' → ' + esc(e.data.fallback) : '') + '</li>').join('') + '</ul>' : '') +
      (routes ? '<h4>Route decisions</h4><table><tr><th>event</th><th>route</th><th>decided by</th><th>reason</th><th>candidates</th><th>excluded (why)</th></tr>' + routes + '</table>' : '');
  }
`;

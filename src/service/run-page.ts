import { RUN_PAGE_SCRIPT } from './run-page-script.js';

/**
 * The run page (GET /runs/<runId>, docs/api.md): one server-sent HTML page with a small script, no
 * build chain, for a person who must see what a run did and why it was allowed. The bearer token comes
 * as in the inbox (the URL fragment `#token=...` or the tab's sessionStorage, shared with the inbox);
 * the page itself holds no data: it reads `/v1/runs/<id>`, its events (internal view for operators
 * with the role, else public) live from the SSE feed, its invocations and its verification report
 * (operators), so the API's
 * identity, tenancy and redaction decide what it shows. Every value is escaped before it is shown.
 */
export const RUN_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Run · agent-harness</title>
<style>
  body { font: 14px/1.45 system-ui, sans-serif; margin: 0; background: #f5f6f8; color: #1d2433; }
  header { background: #1d2433; color: #fff; padding: 12px 20px; display: flex; gap: 16px; align-items: center; }
  header h1 { font-size: 17px; margin: 0; flex: 1; word-break: break-all; }
  main { max-width: 1200px; margin: 16px auto; padding: 0 16px; }
  .card { background: #fff; border-radius: 8px; padding: 14px 18px; margin-bottom: 14px; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  .card h2 { font-size: 15px; margin: 0 0 8px; }
  .status { font-weight: 600; padding: 2px 8px; border-radius: 10px; background: #e8ecf3; }
  .status.succeeded { background: #d7f5dd; color: #17612a; }
  .status.failed, .status.cancelled, .status.budget_exhausted, .status.unverified { background: #fde0e0; color: #8a1c1c; }
  .status.verified { background: #d7f5dd; color: #17612a; }
  dl.pins { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
  dl.pins dt { color: #667085; } dl.pins dd { margin: 0; word-break: break-all; }
  .cols { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 14px; }
  .group { border-left: 3px solid #98a2b3; margin: 8px 0; padding-left: 10px; }
  .group h3 { font-size: 14px; margin: 4px 0; }
  .ev { display: grid; grid-template-columns: 44px 150px 1fr; gap: 8px; padding: 2px 4px; cursor: pointer; border-radius: 4px; }
  .ev:hover, .ev.sel { background: #eef2ff; }
  .ev.bad { color: #8a1c1c; font-weight: 600; }
  .ev span { overflow-wrap: anywhere; }
  .seq, .muted { color: #667085; font-size: 12px; }
  pre { background: #f2f4f7; padding: 8px; overflow: auto; max-height: 420px; font-size: 12px; white-space: pre-wrap; word-break: break-all; }
  .effect { border: 1px solid #d0d5dd; border-radius: 6px; padding: 10px 12px; margin: 10px 0; }
  .effect h3 { margin: 0 0 6px; font-size: 14px; }
  .panel { background: #f9fafb; border-radius: 6px; padding: 6px 10px; margin: 6px 0; }
  .panel h4 { margin: 0 0 4px; font-size: 13px; }
  .ok { color: #17612a; font-weight: 600; } .no { color: #8a1c1c; font-weight: 600; }
  .toolbar { display: flex; gap: 12px; flex-wrap: wrap; align-items: center; }
  .grow { flex: 1; }
  button { font: inherit; padding: 4px 12px; border-radius: 6px; border: 1px solid #98a2b3; background: #fff; cursor: pointer; }
  input[type=text] { font: inherit; padding: 5px 8px; border: 1px solid #98a2b3; border-radius: 6px; flex: 1; }
  table { border-collapse: collapse; width: 100%; font-size: 13px; }
  th, td { border: 1px solid #d0d5dd; padding: 4px 6px; text-align: left; vertical-align: top; }
  #audit { display: none; }
  @media print {
    header, .toolbar button, #timeline-card, #inspector-card, #signin { display: none !important; }
    #audit { display: block; } .cols { display: block; } body { background: #fff; }
  }
</style>
</head>
<body>
<header><h1 id="title">Run</h1><span id="who">not signed in</span></header>
<main>
  <div id="signin" class="card" hidden>
    <p>Paste your bearer token (or open this page as <code>/runs/&lt;id&gt;#token=&lt;jwt&gt;</code>).</p>
    <div class="toolbar"><input id="token" type="text" placeholder="eyJ..."><button id="use">Sign in</button></div>
  </div>
  <p id="error" class="card no" hidden></p>
  <div id="head" class="card" hidden></div>
  <div id="proof" class="card" hidden>
    <div class="toolbar">
      <h2 class="grow">Verification <span id="badge" class="status" data-role="badge">checking…</span></h2>
      <button id="export">Export bundle</button>
      <button id="copy">Copy verify command</button>
      <code data-role="verify-command" id="verify-command"></code>
    </div>
    <div id="checks"></div>
  </div>
  <div id="effects-card" class="card" hidden><h2>Side effects</h2><div id="effects"></div></div>
  <div id="plan-card" class="card" hidden><h2>Route and plan</h2><div id="plan-body"></div></div>
  <div id="audit" class="card"><h2>Audit view</h2><div id="audit-body"></div></div>
  <div class="cols">
    <div id="timeline-card" class="card" hidden>
      <div class="toolbar">
        <h2 class="grow">Timeline</h2>
        <label><input type="checkbox" data-filter="model" checked> model</label>
        <label><input type="checkbox" data-filter="tool" checked> tools</label>
        <label><input type="checkbox" data-filter="decision" checked> policy and people</label>
        <label><input type="checkbox" data-filter="flow" checked> route, plan, state</label>
        <label><input type="checkbox" data-filter="other"> other</label>
        <button id="first-failure">Jump to first failure</button>
        <button id="print">Print audit view</button>
      </div>
      <div id="timeline"></div>
    </div>
    <div id="inspector-card" class="card" hidden><h2>Inspector</h2><div id="inspector" class="muted">Select an event.</div></div>
  </div>
</main>
<script>${RUN_PAGE_SCRIPT}</script>
</body>
</html>
`;

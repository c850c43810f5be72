/** The report's stylesheet: system fonts only, light and dark (`prefers-color-scheme`), print without cut-off tables. */
export const REPORT_CSS = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --panel: #f6f8fa;
  --accent: #0969da; --bad: #cf222e; --warn-bg: #fff8c5; --warn-line: #d4a72c; --bad-bg: #ffebe9; --sel: #ddf4ff; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #30363d; --panel: #161b22; --accent: #4493f8;
    --bad: #f85149; --warn-bg: #2e2a1b; --warn-line: #9e6a03; --bad-bg: #3a1d1f; --sel: #12263f; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
#app { max-width: 1200px; margin: 0 auto; padding: 16px 20px 48px; }
h1 { font-size: 1.5rem; margin: 0.2em 0; } h2 { font-size: 1.2rem; margin: 1.6em 0 0.5em; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 1rem; margin: 1.2em 0 0.4em; }
.muted { color: var(--muted); } code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
pre { white-space: pre-wrap; word-break: break-word; background: var(--panel); padding: 8px; border-radius: 6px; margin: 4px 0; }
nav.toc a { margin-right: 12px; color: var(--accent); }
table { border-collapse: collapse; margin: 6px 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
td.num, th.num { text-align: right; }
.table-wrap { overflow: auto; max-height: 320px; max-width: 100%; }
.table-wrap.full { max-height: none; }
.banner { border: 1px solid var(--warn-line); background: var(--warn-bg); padding: 8px 12px; border-radius: 6px; margin: 10px 0; }
.banner.failed { border-color: var(--bad); background: var(--bad-bg); }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(540px, 1fr)); gap: 16px; }
figure.chart { margin: 8px 0; padding: 8px; border: 1px solid var(--line); border-radius: 6px; break-inside: avoid; overflow-x: auto; }
figure.chart figcaption { font-weight: 600; margin-bottom: 4px; }
figure.chart svg { max-width: 100%; height: auto; background: transparent; color: var(--fg); }
.controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; }
input[type=search], select, button { font: inherit; color: var(--fg); background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 3px 8px; }
button { cursor: pointer; }
.items { display: grid; grid-template-columns: minmax(260px, 2fr) 3fr; gap: 16px; align-items: start; }
.item-list { max-height: 70vh; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
.item-list table { margin: 0; width: 100%; } .item-list tr { cursor: pointer; } .item-list tr:hover td { background: var(--panel); }
.item-list tr.selected td { background: var(--sel); }
.items.stacked { grid-template-columns: 1fr; } .items.stacked .item-list { max-height: 45vh; }
.item-detail { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; min-height: 120px; }
.bad { color: var(--bad); font-weight: 600; } .ok { color: inherit; }
.pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 12px; }
.turn { margin: 2px 0; } .turn b { display: inline-block; min-width: 72px; }
.tag { display: inline-block; border: 1px solid var(--line); border-radius: 10px; padding: 0 6px; margin: 0 4px 2px 0; font-size: 12px; }
details summary { cursor: pointer; }
.verdict ul.sentences { font-size: 1.05rem; line-height: 1.55; padding-left: 1.2em; }
.verdict ul.sentences li { margin: 4px 0; }
td.headline { font-weight: 600; font-size: 1.05rem; }
th.sortable { cursor: pointer; user-select: none; } th.sortable[aria-sort=ascending]::after { content: " ▲"; }
th.sortable[aria-sort=descending]::after { content: " ▼"; }
.flipped tbody tr { cursor: pointer; } .flipped tbody tr:hover td { background: var(--panel); }
.flipped .table-wrap { max-height: 420px; }
figure.chart details.chart-data summary { font-size: 12px; color: var(--muted); }
.conversation { display: flex; flex-direction: column; gap: 4px; margin: 6px 0; }
.msg { display: flex; flex-direction: column; max-width: 85%; }
.msg.left { align-self: flex-start; } .msg.right { align-self: flex-end; align-items: flex-end; }
.msg.note { align-self: center; max-width: 95%; font-size: 12px; }
.msg .who { font-size: 11px; color: var(--muted); margin: 0 6px; }
.msg .bubble { white-space: pre-wrap; word-break: break-word; padding: 6px 10px; border-radius: 10px; border: 1px solid var(--line); background: var(--panel); }
.msg.right .bubble { background: var(--sel); }
.msg.probe .bubble { border-color: var(--warn-line); border-style: dashed; }
.probe-result { align-self: stretch; border-left: 3px solid var(--accent); padding: 2px 8px; margin: 2px 0 6px; font-size: 13px; }
.probe-result.bad { border-left-color: var(--bad); }
tr.disputed td { background: var(--bad-bg); }
.explanation-part { margin: 4px 0; } .explanation-part ul { margin: 2px 0; }
.prose { white-space: pre-wrap; margin: 4px 0; }
.run-label { margin-top: 0.4em; color: var(--accent); }
.why { color: var(--muted); font-size: 12px; }
table.kv th { white-space: nowrap; }
#agreement td:not(:last-child) { white-space: nowrap; } #agreement p.headline-alpha { font-size: 1.05rem; }
@media print {
  body { font-size: 11px; } #app { max-width: none; padding: 0; }
  .controls, button { display: none !important; }
  .table-wrap, .item-list { max-height: none !important; overflow: visible !important; }
  table { width: 100%; table-layout: auto; word-break: break-word; } tr, figure.chart { break-inside: avoid; }
  .items { display: block; } h2 { break-after: avoid; }
}
`;

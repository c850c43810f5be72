import { createHash } from 'node:crypto';
import { REPORT_CSS } from '../style';

/** JSON that is safe inside `<script type="application/json">`: no `<` (so no `</script>` or `<!--`), no line separators. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sha256Base64(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

/**
 * One self-contained page: the data as one JSON script tag, the page script inline, a Content-Security-Policy that
 * allows only that script (by hash) and no network of any kind.
 */
export function page(opts: { title: string; data: unknown; script: string; body?: string }): string {
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${sha256Base64(opts.script)}'`,
    "style-src 'unsafe-inline'",
    'img-src data: blob:',
    "font-src 'none'",
    "connect-src 'none'",
    "media-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "worker-src 'none'",
    "manifest-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<meta name="generator" content="@eval/report">',
    '<link rel="icon" href="data:,">',
    `<title>${escapeHtml(opts.title)}</title>`,
    `<style>${REPORT_CSS}</style>`,
    '</head>',
    '<body>',
    `<noscript><p>This page needs JavaScript to draw its charts and tables; its data is embedded in this file as JSON (script id="report-data").</p></noscript>`,
    opts.body ?? '<div id="app" aria-busy="true"></div>',
    `<script type="application/json" id="report-data">${embedJson(opts.data)}</script>`,
    `<script>${opts.script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const p = await b.newPage({ viewport: { width: 1280, height: 900 } });
const errs = []; p.on('console', (m) => m.type() === 'error' && errs.push(m.text()));
await p.goto('file://' + process.argv[2]);
await p.waitForSelector('body[data-ready="true"]', { state: 'attached' });
if (process.argv[4]) { await p.click(`tr[data-id="${process.argv[4]}"]`); }
await p.screenshot({ path: process.argv[3], fullPage: true });
console.log(errs);
await b.close();

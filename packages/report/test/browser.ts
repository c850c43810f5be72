import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';

/** The system Chromium: $CHROME_PATH, $PUPPETEER_EXECUTABLE_PATH, then chromium / chromium-browser / google-chrome on PATH. */
export function findBrowser(): string | undefined {
  for (const env of ['CHROME_PATH', 'PUPPETEER_EXECUTABLE_PATH']) {
    const p = process.env[env];
    if (p && existsSync(p)) return p;
  }
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (dir && existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

export async function launch(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

export interface OpenedReport {
  page: Page;
  /** Console errors and uncaught page errors. */
  errors: string[];
  /** Every request the page made that is not file:, data:, blob: or about:. */
  network: string[];
  /** Every request URL. */
  requests: string[];
  /** From navigation start until the page's app marked itself ready (ms). */
  readyMs: number;
}

/** Opens a report file and waits until its app is ready, recording console errors and every request. */
export async function openReport(
  browser: Browser,
  file: string,
  opts: { colorScheme?: 'light' | 'dark'; width?: number } = {},
): Promise<OpenedReport> {
  const context = await browser.newContext({
    colorScheme: opts.colorScheme ?? 'light',
    viewport: { width: opts.width ?? 1280, height: 900 },
    offline: true,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  const network: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await context.route('**/*', (route) => {
    const url = route.request().url();
    requests.push(url);
    if (/^(file|data|blob|about):/.test(url)) return route.continue();
    network.push(url);
    return route.abort();
  });
  const started = Date.now();
  await page.goto(pathToFileURL(file).href);
  try {
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000, state: 'attached' });
  } catch (error) {
    throw new Error(`${file} did not become ready: ${errors.join('; ') || String(error)}`);
  }
  const readyMs = Date.now() - started;
  return { page, errors, network, requests, readyMs };
}

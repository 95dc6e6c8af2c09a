// Opens a ream HTML report in headless Chromium (Debian's, driven by playwright-core) and
// prints, as JSON, what a reader would see: console and page errors, any request for
// something other than the file itself, each chart's state and drawn marks, the panels that
// say a metric is unavailable, and every number tagged with data-metric.
// Usage: node browser_check.mjs REPORT.html [CHROMIUM]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const assets = process.env.REAM_REPORT_ASSETS_MODULES ||
    resolve(new URL('.', import.meta.url).pathname, '../../report-assets/node_modules');
const { chromium } = require(join(assets, 'playwright-core'));

const file = resolve(process.argv[2]);
const executablePath = process.argv[3] || '/usr/bin/chromium';
const profile = mkdtempSync(join(tmpdir(), 'ream-chromium-'));
const out = { console_errors: [], page_errors: [], foreign_requests: [], charts: [],
              unavailable: [], metrics: [], state: null };
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] || await context.newPage();
  const url = pathToFileURL(file).href;
  page.on('console', (m) => { if (m.type() === 'error') out.console_errors.push(m.text()); });
  page.on('pageerror', (e) => out.page_errors.push(String(e)));
  page.on('request', (r) => { if (r.url() !== url) out.foreign_requests.push(r.url()); });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.reamCharts && window.reamCharts.done, null,
                             { timeout: 60000 });
  out.state = await page.evaluate(() => window.reamCharts);
  out.charts = await page.$$eval('[data-chart]', (els) => els.map((el) => ({
    id: el.getAttribute('data-chart'),
    rows: Number(el.getAttribute('data-rows')),
    rendered: el.getAttribute('data-rendered'),
    svg: el.querySelectorAll('svg').length,
    line_paths: el.querySelectorAll('g.mark-line path').length,
    symbols: el.querySelectorAll('g.mark-symbol.role-mark path').length,
    lqos_rules: el.querySelectorAll('g.mark-rule.lqos_marks line').length,
    width: el.getBoundingClientRect().width,
    height: el.getBoundingClientRect().height,
  })));
  out.unavailable = await page.$$eval('[data-chart-unavailable]', (els) => els.map((el) => ({
    id: el.getAttribute('data-chart-unavailable'), text: el.textContent })));
  out.metrics = await page.$$eval('[data-metric]', (els) => els.map((el) => ({
    metric: el.getAttribute('data-metric'), group: el.getAttribute('data-group'),
    value: el.getAttribute('data-value'), text: el.textContent })));
  if (process.env.REAM_SCREENSHOT) {
    await page.screenshot({ path: process.env.REAM_SCREENSHOT, fullPage: true });
  }
} catch (e) {
  out.error = String(e && e.stack || e);
} finally {
  if (context) await context.close();
  rmSync(profile, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
process.exit(out.error ? 1 : 0);

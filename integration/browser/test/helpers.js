// Shared by the viewer's browser tests: the live server they run against (from the environment
// integration/browser_test.go sets), Debian's chromium driven by playwright-core, waiting for
// what the page shows, screenshots, and direct API calls to compare the page with.

import {mkdirSync} from 'node:fs';
import {join} from 'node:path';
import {chromium} from 'playwright-core';

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run these tests through integration/browser_test.go (go test ./integration -run TestBrowserViewer)`);
  return v;
}

/** env describes the live `adi serve` under test. */
export const env = {
  viewer: need('ADI_VIEWER_URL'), // the URL adi serve printed, with #token=…
  url: need('ADI_URL'), // http://ADDR
  token: need('ADI_TOKEN'),
  session: process.env.ADI_SESSION ?? 'demo', // a session that recorded examples/orders.py
  dir: need('ADI_DEMO_DIR'), // the directory of that orders.py (tests may add programs there)
  artifacts: process.env.ADI_ARTIFACTS ?? new URL('../../artifacts', import.meta.url).pathname,
  chromium: process.env.ADI_CHROMIUM ?? '/usr/bin/chromium',
  dap: process.env.ADI_DAP ?? '', // HOST:PORT of `adi serve --dap`, for an editor's run
};

/** launch starts chromium headless, with a fresh profile and nothing that calls out. */
export function launch() {
  return chromium.launch({
    executablePath: env.chromium,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** sessionURL is the viewer's URL as adi serve printed it, naming the session under test. */
const sessionURL = `${env.viewer}&session=${env.session}`;

/**
 * open loads a page (the session under test by default) in a context of its own (its own
 * cookies) and collects the page's errors, which a test should find empty.
 */
export async function open(browser, {url = sessionURL, viewport = {width: 1280, height: 800}, colorScheme = 'light'} = {}) {
  const context = await browser.newContext({viewport, colorScheme});
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(url);
  return {context, page, errors};
}

/**
 * ready waits for the viewer to show a session and the FLT under inspection; when it does not,
 * it fails with what the page shows instead (and a screenshot, failed-ready.png).
 */
export async function ready(page) {
  try {
    // attached: on a narrow window the sessions are on a tab of their own
    await page.locator(`#sessions .session[aria-current="true"]`).waitFor({state: 'attached'});
    await page.locator('#flt .source li.line').first().waitFor({state: 'attached'});
  } catch (err) {
    await shot(page, 'failed-ready').catch(() => {});
    const seen = await page.evaluate(() => ['#conn', '#alert', '#progress', '#locked', '#flt-title']
      .map((sel) => `${sel}: ${document.querySelector(sel)?.innerText.trim()}`).join('; ')).catch((e) => e.message);
    throw new Error(`the viewer did not show the session and its FLT (${seen}): ${err.message}`);
  }
}

/**
 * waitText waits until the text of the first element matching selector is expected (a string:
 * exactly; a RegExp: matching), and fails with what was there instead.
 */
export async function waitText(page, selector, expected, timeout = 10000) {
  const ok = (t) => (expected instanceof RegExp ? expected.test(t) : t === expected);
  const deadline = Date.now() + timeout;
  let last = null;
  for (;;) {
    last = await page.locator(selector).first().textContent({timeout: 1000}).catch(() => null);
    if (last != null && ok(last.trim())) return last.trim();
    if (Date.now() > deadline) throw new Error(`${selector}: want ${expected}, got ${JSON.stringify(last)}`);
    await page.waitForTimeout(50);
  }
}

/** title waits for the FLT pane to show the frame fid (its "module:qualname#N"). */
export function title(page, fid) {
  return waitText(page, '#flt-title .fid', fid);
}

/** row returns the call tree's row of a call shown as name (e.g. "line_total#3"). */
export function row(page, name, list = '.root-calls') {
  return page.locator(`#tree ${list} .row`).filter({has: page.locator('.open', {hasText: new RegExp(`^${escape(name)}$`)})});
}

/** line returns the FLT pane's row of a source line. */
export function line(page, n) {
  return page.locator(`#flt .source li.line[data-line="${n}"]`);
}

function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** shot saves a screenshot as a test artifact (integration/artifacts/NAME.png). */
export async function shot(page, name, fullPage = false) {
  mkdirSync(env.artifacts, {recursive: true});
  await page.screenshot({path: join(env.artifacts, `${name}.png`), fullPage});
}

/** api calls the server directly (POST /api/rpc with the token), for what the page must match. */
export async function api(method, params = {}) {
  const res = await fetch(`${env.url}/api/rpc`, {
    method: 'POST',
    headers: {'Authorization': `Bearer ${env.token}`, 'Content-Type': 'application/json'},
    body: JSON.stringify({jsonrpc: '2.0', id: 1, method, params}),
  });
  const ans = await res.json();
  if (ans.error) throw new Error(`${method}: ${ans.error.message}`);
  return ans.result;
}

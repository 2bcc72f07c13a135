// The access token: the page opened without it, or with a wrong one, says how to open it and
// shows no data; opened from the URL adi serve printed, it moves the token out of the address
// bar into a cookie, and a reload without the fragment still works.

import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {env, launch, open, ready, shot, waitText} from './helpers.js';

const MESSAGE = 'Open the URL that adi serve printed (it carries the access token).';

/** apiTraffic records every request the page makes to the API (HTTP or WebSocket). */
function apiTraffic(page) {
  const seen = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.startsWith('/api/')) seen.push(r.url());
  });
  page.on('websocket', (ws) => seen.push(ws.url()));
  return seen;
}

/** noData checks that nothing of the session reached the page. */
async function noData(page) {
  const text = await page.locator('body').innerText();
  assert.doesNotMatch(text, /orders\.py|python /);
  assert.doesNotMatch(text, new RegExp(`\\b${env.session}\\b`));
  assert.equal(await page.locator('#sessions .session').count(), 0);
  assert.equal(await page.locator('#tree li.call').count(), 0);
  assert.equal(await page.locator('#app').isHidden(), true);
}

describe('the access token', () => {
  let browser;

  before(async () => {
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
  });

  it('without it the page says how to open it and loads no data', async () => {
    const context = await browser.newContext({viewport: {width: 1280, height: 800}});
    const page = await context.newPage();
    const traffic = apiTraffic(page);
    await page.goto(`${env.url}/`);
    await page.locator('#locked').waitFor();
    assert.equal((await page.locator('#locked').innerText()).includes(MESSAGE), true);
    await waitText(page, '#locked .locked-why', /opened without a token/);
    await page.waitForTimeout(300);
    await noData(page);
    assert.deepEqual(traffic, []);
    await shot(page, '10-no-token');
    await context.close();
  });

  it('with a wrong one the page says so and loads no data', async () => {
    const context = await browser.newContext({viewport: {width: 1280, height: 800}});
    const page = await context.newPage();
    const traffic = apiTraffic(page);
    await page.goto(`${env.url}/#token=not-the-token-${Date.now()}`);
    await page.locator('#locked').waitFor();
    assert.equal((await page.locator('#locked').innerText()).includes(MESSAGE), true);
    await waitText(page, '#locked .locked-why', /the token is wrong/);
    await page.waitForTimeout(300);
    await noData(page);
    assert.equal(traffic.filter((u) => u.startsWith('ws')).length, 0, 'no WebSocket is opened');
    assert.equal((await context.cookies()).some((c) => c.name === 'adi_token'), false, 'the wrong token is forgotten');
    await context.close();
  });

  it('from the printed URL it moves into a cookie and out of the address bar', async () => {
    const {context, page, errors} = await open(browser, {url: env.viewer});
    await ready(page);
    assert.doesNotMatch(page.url(), /token/);
    assert.doesNotMatch(await page.evaluate(() => location.href), /token/);
    const cookie = (await context.cookies()).find((c) => c.name === 'adi_token');
    assert.equal(cookie?.value, env.token);
    assert.equal(cookie.sameSite, 'Strict');

    await page.goto(`${env.url}/`);
    await ready(page);
    await waitText(page, `#sessions .session[data-session="${env.session}"] .cmd`, 'python orders.py');
    assert.deepEqual(errors, []);
    await context.close();
  });
});

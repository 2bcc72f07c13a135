// A long FLT read a page at a time (issue 16): adi.flt's steps param answers a range of τ or the
// steps of the loop iterations picked, with the total and the loops; the viewer loads only the
// steps it shows and picks iterations through it.

import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {api, env, launch, line, open, ready, shot, title, waitText} from './helpers.js';

const LONG = `def work():
    total = 0
    for i in range(5000):
        total += i
    return total


work()
`;

describe('paging', () => {
  let browser;
  let page;
  let errors;

  before(async () => {
    writeFileSync(join(env.dir, 'long.py'), LONG);
    await api('session.create', {command: 'python long.py', dir: env.dir, id: 'long'});
    await api('adi.step_into', {session: 'long', frame: 'work#1', steps: {limit: 1}});
    browser = await launch();
    ({page, errors} = await open(browser, {url: `${env.viewer}&session=long`}));
    await ready(page);
    await title(page, 'long:work#1');
  });

  after(async () => {
    await browser?.close();
  });

  it('answers a range of τ with its total, the loops and each line\'s count', async () => {
    const r = (await api('adi.flt', {session: 'long', steps: {offset: 2, limit: 3}})).result;
    assert.deepEqual(r.steps.map((s) => [s.line, s.changes?.map((c) => `${c.name}=${c.new}`)]), [[4, undefined], [3, ['i=1']], [4, ['total=1']]]);
    assert.deepEqual(r.page, {total: 10003, offset: 2, limit: 3, steps: 10003, index: [2, 3, 4], visit: [1, 2, 2],
      loops: [{header: 3, first: 1, last: 5001, count: 5001, selected: 1, exit: 5001, from: 1, to: 10002}],
      hits: {2: 1, 3: 5001, 4: 5000, 5: 1}});
    const byIt = (await api('adi.flt', {session: 'long', steps: {iterations: {3: 10}}})).result;
    assert.deepEqual(byIt.page.index, [0, 19, 20, 10002]);
    assert.deepEqual(byIt.page.visit, [1, 10, 10, 1]);
    assert.equal(byIt.page.total, 4);
    assert.equal(byIt.page.loops[0].selected, 10);
  });

  it('shows a long FLT from the steps of the iterations picked', async () => {
    assert.equal(await page.locator('#flt .flt-notes').textContent(), '10003 steps: the page holds those of the loop iterations picked (no charts).');
    const slider = line(page, 3).locator('input.iter-slider');
    assert.equal(await slider.getAttribute('max'), '5000');
    assert.equal(await line(page, 3).locator('.hits').textContent(), '5001×');
    assert.equal(await line(page, 4).locator('.hits').textContent(), '5000×');
    assert.equal(await line(page, 3).locator('.loop-chart').count(), 0);
    await slider.fill('9');
    await waitText(page, '#flt li.line[data-line="4"] .change-text', 'total = 45 (was 36)');
    assert.equal(await line(page, 3).locator('.iter-value').textContent(), '10');
    await line(page, 3).locator('.iter-next').click();
    await waitText(page, '#flt li.line[data-line="4"] .change-text', 'total = 55 (was 45)');
    await line(page, 4).locator('.lineno').click();
    assert.equal(await page.locator('#execute input[name=visit]').inputValue(), '11');
    await shot(page, '73-long-flt-paged');
  });

  it('raised no error in the page', () => {
    assert.deepEqual(errors, []);
  });
});

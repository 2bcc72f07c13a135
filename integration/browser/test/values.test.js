// Values (issue 16): a dict, list or object opens as a tree of its entries, as a debugger's
// variables view, and shows the text once; a long value that changed shows what was added,
// removed and changed; a value the recording cut says so and records it in full on demand.

import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {api, env, launch, line, open, ready, shot, title, waitText} from './helpers.js';

export const V3 = `from dataclasses import dataclass


@dataclass
class Item:
    name: str
    qty: int


def build():
    stock = {"apples": 3, "pears": [1, 2, 3], "item": Item("fig", 2), "note": "a note long enough to make it wrap"}
    stock["pears"].append(4)
    stock = dict(stock, plums=5, apples=4)
    big = list(range(5000))
    big[0] = -1
    return len(big)


build()
`;

describe('values', () => {
  let browser;
  let page;
  let errors;

  before(async () => {
    writeFileSync(join(env.dir, 'v3.py'), V3);
    await api('session.create', {command: 'python v3.py', dir: env.dir, id: 'v3'});
    await api('adi.step_into', {session: 'v3', frame: 'build#1'});
    browser = await launch();
    ({page, errors} = await open(browser, {url: `${env.viewer}&session=v3`}));
    await ready(page);
    await title(page, 'v3:build#1');
  });

  after(async () => {
    await browser?.close();
  });

  it('opens a dict as a tree of its entries, an object inside it too, in place of its text', async () => {
    const ch = line(page, 11).locator('.change');
    const text = "stock = {'apples': 3, 'pears': [1, 2, 3], 'item': Item(name='fig', qty=2), 'note': 'a note long enough to make it wrap'}";
    assert.equal(await ch.locator('.change-text').textContent(), text);
    const toggle = ch.locator('> .value-view > button.tree-toggle');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    assert.equal(await ch.locator('.change-text').isHidden(), true);
    assert.equal(await ch.locator('.pytree-head').textContent(), 'stock = dict, 4 items');
    const top = ch.locator('.pytree-root > .pytree > li');
    assert.deepEqual(await top.locator('> .pykey').allTextContents(), ["'apples'", "'pears'", "'item'", "'note'"]);
    assert.deepEqual(await top.locator('> .pyv').allTextContents(), ['3', '[1, 2, 3]', "Item(name='fig', qty=2)", "'a note long enough to make it wrap'"]);
    const item = top.nth(2);
    await item.locator('> button.tree-toggle').click();
    assert.equal(await item.locator('> .pyv').textContent(), 'Item, 2 fields');
    assert.deepEqual(await item.locator('.pytree li').allTextContents(), ["name: 'fig'", 'qty: 2']);
    await shot(page, '70-value-tree');
    await toggle.click();
    assert.equal(await ch.locator('.change-text').isVisible(), true);
    assert.equal(await ch.locator('.pytree-root').count(), 0);
  });

  it('shows what a long value\'s change added and changed, and the value once', async () => {
    const ch = line(page, 13).locator('.change');
    assert.equal(await ch.locator('.change-text').textContent(),
      "stock = {'apples': 4, 'pears': [1, 2, 3, 4], 'item': Item(name='fig', qty=2), 'note': 'a note long enough to make it wrap', 'plums': 5}");
    assert.equal(await ch.locator('.value-diff .diff-head').textContent(), 'what changed (2):');
    assert.deepEqual(await ch.locator('.value-diff li').allTextContents(), ["+ ['plums']: 5", "~ ['apples']: 4 (was 3)"]);
    assert.equal(await ch.locator('.was').count(), 0);
    // A short change reads as the FLT text does.
    assert.equal(await line(page, 15).locator('.change-text').textContent(), 'big[0] = -1 (was 0)');
    await shot(page, '71-value-diff');
  });

  it('says where the recording cut a value and records it in full', async () => {
    const ch = line(page, 14).locator('.change');
    const cut = await ch.locator('.change-text').textContent();
    assert.match(cut, /^big = \[0, 1, 2, .*, \.\.\.\] \(len=5000\)$/);
    assert.equal(await ch.locator('.partial').textContent(), 'cut by the recording');
    await ch.locator('button.record-full').click();
    await ch.locator('.full-note').waitFor({timeout: 60000});
    const whole = await ch.locator('.change-text').textContent();
    assert.equal(whole, `big = [${Array.from({length: 5000}, (_, k) => k).join(', ')}]`);
    assert.equal(await ch.locator('.partial').count(), 0);
    await ch.locator('button.tree-toggle').first().click();
    assert.equal(await ch.locator('.pytree-head').textContent(), 'big = list, 5000 items');
    await shot(page, '72-value-full');
  });

  it('raised no error in the page', () => {
    assert.deepEqual(errors, []);
  });
});

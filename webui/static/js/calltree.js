// The call tree pane: T as a tree, loaded lazily (trace.frames for the top-level calls,
// trace.children when a node opens), each node with its fid, arguments and return value or
// exception; a filter over fids, arguments and returns (trace.frames' query). Opening a node
// moves the inspection index there (adi.step_into) and shows its FLT; wherever the inspection
// index goes, the tree opens down to that frame and marks it.

import {app} from './app.js';
import {$, argsText, exceptionText, fidOf, h, plural, shortFID, throttle} from './dom.js';
import {guard, stepInto} from './nav.js';

/** PAGE is how many frames one scan for top-level calls reads. */
const PAGE = 1000;
/** CHUNK is how many children a node shows before a "show more" button. */
const CHUNK = 200;
/** MATCHES is how many filter matches are listed. */
const MATCHES = 200;
/** REVEAL is the deepest frame the tree opens down to by itself. */
const REVEAL = 64;

const pane = () => $('#tree');
let scanned = 0;
let total = 0;
let expanded = new Set();
let funcs = new Set();
let known = new Map(); // index in T → Frame, for every frame read so far
let loading = Promise.resolve(); // the latest reload
let generation = 0; // counts reloads: a slower, older one drops what it read

export function init() {
  app.on('session', () => {
    expanded = new Set();
    $('.tree-filter', pane()).value = '';
    $('.root-calls', pane()).replaceChildren();
    reload();
  });
  app.on('trace', reload);
  app.on('flt', (flt) => reveal(flt.frame.frame).catch((err) => app.report(err)));
  $('.more-roots', pane()).addEventListener('click', guard(() => scan(generation, false)));
  $('.tree-filter', pane()).addEventListener('input', throttle(() => filter().catch((err) => app.report(err)), 250));
  pane().addEventListener('keydown', keys);
}

/** focusFilter puts the cursor in the filter box (the / key). */
export function focusFilter() {
  $('.tree-filter', pane()).focus();
}

/** reload reads the top-level calls again and reopens the nodes that were open. */
function reload() {
  loading = load(++generation);
  loading.catch((err) => app.report(err));
}

async function load(gen) {
  if (!app.session) return;
  await scan(gen, true);
  if (gen === generation) await filter();
}

/**
 * scan reads a page of T and shows the top-level calls (depth 0) found in it: the first page
 * in place of what the list held (fresh), else the next page after it.
 */
async function scan(gen, fresh) {
  const from = fresh ? 0 : scanned;
  const ans = await app.call('trace.frames', {offset: from, limit: PAGE});
  if (gen !== generation) return;
  if (fresh) {
    known = new Map();
    funcs = new Set();
  }
  learn(ans.frames);
  const items = [];
  for (const f of ans.frames.filter((f) => f.depth === 0)) items.push(await node(f));
  if (gen !== generation) return;
  total = ans.total;
  scanned = from + ans.frames.length;
  const list = $('.root-calls', pane());
  const focused = document.activeElement?.closest?.('.root-calls li.call')?.dataset.frame;
  if (fresh) list.replaceChildren(...items);
  else list.append(...items);
  if (focused) list.querySelector(`li.call[data-frame="${focused}"] > .row > .open`)?.focus();
  const more = $('.more-roots', pane());
  more.hidden = scanned >= total;
  more.textContent = `Scan further for top-level calls (${scanned} of ${total} frames read)`;
  status();
  markCurrent();
}

function status(text) {
  $('.tree-status', pane()).textContent = text ?? `${plural(total, 'call')} recorded`;
}

/** learn remembers frames, and function names for the breakpoint form. */
function learn(frames) {
  const before = funcs.size;
  for (const f of frames) {
    funcs.add(f.fid.func);
    known.set(f.index, f);
  }
  if (funcs.size !== before) app.emit('funcs', [...funcs]);
}

/** node renders one call; it reopens its children when it was open. */
async function node(f, opts = {}) {
  const fid = fidOf(f);
  const kids = f.callees?.length ?? 0;
  const li = h('li', {class: 'call', dataset: {frame: f.index}});
  const twisty = kids && !opts.flat
    ? h('button', {type: 'button', class: 'twisty', tabindex: '-1', 'aria-expanded': 'false',
      'aria-label': `Show the ${plural(kids, 'call')} of ${shortFID(fid)}`, onclick: guard(() => toggle(li, f))})
    : h('span', {class: 'twisty leaf', 'aria-hidden': 'true'});
  li.append(h('div', {class: 'row'},
    twisty,
    h('button', {type: 'button', class: 'open', title: `${fid}: show what it did`, onclick: guard(() => stepInto(fid))}, shortFID(fid)),
    outcome(f),
    f.args.length ? h('span', {class: 'args', title: argsText(f.args)}, '(', argsText(f.args), ')') : null,
    kids && !opts.flat ? h('span', {class: 'kids', 'aria-hidden': 'true'}, String(kids)) : null));
  if (expanded.has(f.index) && !opts.flat) await open(li, f);
  return li;
}

function outcome(f) {
  if (f.status === 'raised' && f.exception) {
    return h('span', {class: 'exc', title: exceptionText(f.exception)}, '⚠ ', exceptionText(f.exception));
  }
  if (f.status === 'unfinished') return h('span', {class: 'unfinished'}, 'unfinished');
  return h('span', {class: 'ret', title: f.return ?? ''}, '→ ', f.return ?? '');
}

async function toggle(li, f) {
  if (li.querySelector(':scope > .calls')) close(li, f);
  else await open(li, f);
}

async function open(li, f) {
  const session = app.session;
  const ans = await app.call('trace.children', {frame: f.index});
  if (session !== app.session || li.querySelector(':scope > .calls')) return;
  learn(ans.frames);
  expanded.add(f.index);
  const ul = h('ul', {class: 'calls', id: `calls-${f.index}`});
  li.append(ul);
  const btn = li.querySelector(':scope > .row > .twisty');
  btn.setAttribute('aria-expanded', 'true');
  btn.setAttribute('aria-controls', ul.id);
  await fill(ul, ans.frames, 0);
  markCurrent();
}

/** fill shows frames[from:from+CHUNK] in ul, then a button for the rest. */
async function fill(ul, frames, from) {
  for (const g of frames.slice(from, from + CHUNK)) ul.append(await node(g));
  const rest = frames.length - from - CHUNK;
  if (rest > 0) {
    const more = h('li', {class: 'more-calls'},
      h('button', {type: 'button', class: 'quiet', onclick: guard(async () => {
        more.remove();
        await fill(ul, frames, from + CHUNK);
      })}, `Show ${plural(Math.min(rest, CHUNK), 'more call')} (${rest} left)`));
    ul.append(more);
  }
}

function close(li, f) {
  expanded.delete(f.index);
  li.querySelector(':scope > .calls').remove();
  li.querySelector(':scope > .row > .twisty').setAttribute('aria-expanded', 'false');
}

/** filter lists the calls whose fid, arguments or return contain the filter text. */
async function filter() {
  const q = $('.tree-filter', pane()).value.trim();
  const matches = $('.matches', pane());
  const tree = $('.root-calls', pane());
  if (!q || !app.session) {
    matches.hidden = true;
    tree.hidden = false;
    $('.more-roots', pane()).hidden = scanned >= total;
    status();
    return;
  }
  const session = app.session;
  const ans = await app.call('trace.frames', {query: q, limit: MATCHES});
  if (session !== app.session || q !== $('.tree-filter', pane()).value.trim()) return;
  const items = [];
  for (const f of ans.frames) items.push(await node(f, {flat: true}));
  matches.replaceChildren(...items);
  matches.hidden = false;
  tree.hidden = true;
  $('.more-roots', pane()).hidden = true;
  status(ans.total > ans.frames.length
    ? `${ans.total} calls match “${q}”; the first ${ans.frames.length} are listed`
    : `${plural(ans.total, 'call')} match “${q}”`);
  markCurrent();
}

/** reveal opens the nodes down to a frame, marks it, and scrolls the tree to it. */
async function reveal(index) {
  await loading.catch(() => {});
  const session = app.session;
  const chain = [];
  for (let j = index; j >= 0 && chain.length < REVEAL;) {
    if (!known.has(j)) learn((await app.call('trace.frames', {offset: j, limit: 1})).frames);
    if (session !== app.session || !known.has(j)) return;
    chain.unshift(known.get(j));
    j = known.get(j).caller;
  }
  for (const f of chain.slice(0, -1)) {
    const li = pane().querySelector(`.root-calls li.call[data-frame="${f.index}"]`);
    if (!li) break;
    if (!li.querySelector(':scope > .calls')) await open(li, f);
  }
  markCurrent();
  const row = pane().querySelector(`.root-calls li.call[data-frame="${index}"] > .row`);
  const box = $('.tree-scroll', pane());
  if (!row || box.scrollHeight <= box.clientHeight) return; // the pane does not scroll (narrow window)
  const r = row.getBoundingClientRect();
  const b = box.getBoundingClientRect();
  if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += r.top - b.top - b.height / 2;
}

/** markCurrent highlights the nodes of the frame under inspection. */
function markCurrent() {
  const cur = app.flt?.frame.frame;
  for (const el of pane().querySelectorAll('.row.current')) el.classList.remove('current');
  for (const el of pane().querySelectorAll('.open[aria-current]')) el.removeAttribute('aria-current');
  if (cur == null) return;
  for (const li of pane().querySelectorAll(`li.call[data-frame="${cur}"]`)) {
    const row = li.querySelector(':scope > .row');
    row.classList.add('current');
    row.querySelector('.open').setAttribute('aria-current', 'true');
  }
}

/** keys moves through the tree: up and down between calls, right opens, left closes or goes up. */
function keys(e) {
  const btn = e.target.closest?.('button.open');
  if (!btn || e.altKey || e.ctrlKey || e.metaKey) return;
  const li = btn.closest('li.call');
  const visible = [...pane().querySelectorAll('.calls:not([hidden]) button.open')].filter((b) => b.offsetParent !== null);
  const at = visible.indexOf(btn);
  const twisty = li.querySelector(':scope > .row > button.twisty');
  switch (e.key) {
    case 'ArrowDown':
      visible[at + 1]?.focus();
      break;
    case 'ArrowUp':
      visible[at - 1]?.focus();
      break;
    case 'ArrowRight':
      if (twisty?.getAttribute('aria-expanded') === 'false') twisty.click();
      else li.querySelector(':scope > .calls button.open')?.focus();
      break;
    case 'ArrowLeft':
      if (twisty?.getAttribute('aria-expanded') === 'true') twisty.click();
      else li.parentElement.closest('li.call')?.querySelector(':scope > .row > button.open')?.focus();
      break;
    default:
      return;
  }
  e.preventDefault();
}

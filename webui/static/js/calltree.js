// The call tree pane: T as a tree, loaded lazily (trace.frames for the top-level calls,
// trace.children when a node opens), each node with its fid, arguments and return value or
// exception; a filter over fids, arguments, returns and exceptions (trace.frames' query), each
// match saying where it matched. Opening a node moves the inspection index there
// (adi.step_into) and shows its FLT; wherever the inspection index goes, the tree opens down to
// that frame and marks it.
//
// The tree is virtualised: its open nodes are a flat list of rows of one height, and only the
// rows in view are on the page, so 10,000 calls cost what 40 do. It is one Tab stop (role=tree,
// aria-activedescendant names the active row); the arrow keys, Home, End, PageUp and PageDown
// move in it, Enter shows the active call.

import {app} from './app.js';
import {$, argsText, exceptionText, fidOf, h, plural, shortFID, throttle} from './dom.js';
import {guard, stepInto} from './nav.js';

/** PAGE is how many frames one scan for top-level calls reads. */
const PAGE = 1000;
/** CHUNK is how many children a node shows before a row that shows more (or all). */
const CHUNK = 200;
/** MATCHES is how many filter matches are listed. */
const MATCHES = 1000;
/** REVEAL is the deepest frame the tree opens down to by itself. */
const REVEAL = 256;
/** ROW is the height of a row in px (style.css: .vtree .call). */
export const ROW = 44;
/** INDENT is how far a level is indented, in px. */
const INDENT = 14;
/** OVERSCAN is how many rows are drawn beyond each edge of the view. */
const OVERSCAN = 8;

const pane = () => $('#tree');
let scanned = 0;
let total = 0;
let expanded = new Set();
let funcs = new Set();
let known = new Map(); // index in T → Frame, for every frame read so far
let kids = new Map(); // index in T → its callees (Frames), once read
let limit = new Map(); // index in T → how many of its callees are shown
let roots = [];
let loading = Promise.resolve(); // the latest reload
let generation = 0; // counts reloads: a slower, older one drops what it read
let tree = null; // the VList of the tree
let matches = null; // the VList of the filter's matches
let query = '';

/**
 * VList shows rows (objects; rowFn renders one) in el, inside the scrolling box: only those in
 * view. active is the row the keyboard is on.
 */
class VList {
  rows = [];
  active = -1;
  width = 0;

  constructor(el, rowFn) {
    this.el = el;
    this.rowFn = rowFn;
    this.drawn = '';
  }

  set(rows) {
    this.rows = rows;
    if (this.active >= rows.length) this.active = rows.length - 1;
    this.el.style.height = `${rows.length * ROW}px`;
    const deepest = rows.reduce((m, r) => Math.max(m, r.level ?? 0), 0);
    this.el.style.width = deepest > 8 ? `calc(100% + ${(deepest - 8) * INDENT}px)` : '';
    this.draw(true);
  }

  /** draw puts the rows in view on the page (again when force, else when the range moved). */
  draw(force = false) {
    if (this.el.hidden) return;
    const box = $('.tree-scroll', pane());
    const top = box.scrollTop - this.el.offsetTop;
    const height = box.clientHeight || 800;
    const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((top + height) / ROW) + OVERSCAN);
    const key = `${first}:${last}`;
    if (!force && key === this.drawn) return;
    this.drawn = key;
    const out = [];
    for (let i = first; i < last; i++) {
      const el = this.rowFn(this.rows[i], i, this);
      el.style.top = `${i * ROW}px`;
      out.push(el);
    }
    this.el.replaceChildren(...out);
    this.mark();
  }

  /** mark shows the active row and the frame under inspection on the rows drawn. */
  mark() {
    const cur = app.flt?.frame.frame;
    for (const el of this.el.children) {
      const i = Number(el.dataset.row);
      const r = this.rows[i];
      const on = i === this.active;
      el.classList.toggle('active', on);
      el.setAttribute('aria-selected', String(on));
      const current = r?.f && r.f.index === cur;
      el.querySelector('.row')?.classList.toggle('current', !!current);
      const open = el.querySelector('.open');
      if (open) {
        if (current) open.setAttribute('aria-current', 'true');
        else open.removeAttribute('aria-current');
      }
    }
    const act = this.rows[this.active];
    if (act) this.el.setAttribute('aria-activedescendant', rowID(this, this.active));
    else this.el.removeAttribute('aria-activedescendant');
  }

  /** focusRow makes row i the active one and scrolls it into view (centred when center). */
  focusRow(i, center = false) {
    if (!this.rows.length) return;
    this.active = Math.min(Math.max(i, 0), this.rows.length - 1);
    const box = $('.tree-scroll', pane());
    const y = this.el.offsetTop + this.active * ROW;
    if (center) {
      if (y < box.scrollTop || y + ROW > box.scrollTop + box.clientHeight) box.scrollTop = y - box.clientHeight / 2;
    } else if (y < box.scrollTop) box.scrollTop = y;
    else if (y + ROW > box.scrollTop + box.clientHeight) box.scrollTop = y + ROW - box.clientHeight;
    this.draw();
    this.mark();
  }
}

const rowID = (list, i) => `${list === tree ? 't' : 'm'}-row-${i}`;

export function init() {
  tree = new VList($('.root-calls', pane()), treeRow);
  matches = new VList($('.matches', pane()), matchRow);
  app.on('session', () => {
    expanded = new Set();
    $('.tree-filter', pane()).value = '';
    roots = [];
    kids = new Map();
    limit = new Map();
    tree.active = -1;
    tree.set([]);
    reload();
  });
  app.on('trace', reload);
  app.on('flt', (flt) => reveal(flt.frame.frame).catch((err) => app.report(err, treeError())));
  $('.more-roots', pane()).addEventListener('click', guard(() => scan(generation, false), treeError));
  $('.tree-filter', pane()).addEventListener('input', throttle(() => filter().catch((err) => app.report(err, treeError())), 250));
  const box = $('.tree-scroll', pane());
  let frame = 0;
  box.addEventListener('scroll', () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      visible().draw();
    });
  }, {passive: true});
  // A pane shown again (a narrow window's calls tab) scrolls to the frame under inspection, as
  // when the frame was opened with the pane in view; otherwise what it shows would depend on
  // whether the tree loaded before or after the tab was opened.
  let shown = box.clientHeight > 0;
  new ResizeObserver(() => {
    const now = box.clientHeight > 0;
    const i = now && !shown && visible() === tree ? currentRow(tree) : null;
    shown = now;
    if (i != null) tree.focusRow(i, true);
    visible().draw(true);
  }).observe(box);
  for (const list of [tree, matches]) {
    list.el.addEventListener('keydown', (e) => keys(e, list));
    list.el.addEventListener('focus', () => {
      if (list.active < 0 && list.rows.length) list.focusRow(currentRow(list) ?? 0);
    });
  }
}

const treeStatus = () => $('.tree-status', pane());
const treeError = () => $('.tree-error', pane());
const visible = () => (matches.el.hidden ? tree : matches);

function currentRow(list) {
  const cur = app.flt?.frame.frame;
  const i = list.rows.findIndex((r) => r.f?.index === cur);
  return i < 0 ? null : i;
}

/** focusFilter puts the cursor in the filter box (the / key). */
export function focusFilter() {
  $('.tree-filter', pane()).focus();
}

/** reload reads the top-level calls again and reopens the nodes that were open. */
function reload() {
  loading = load(++generation);
  loading.catch((err) => app.report(err, treeError()));
}

async function load(gen) {
  if (!app.session) return;
  await scan(gen, true);
  if (gen === generation) await filter();
}

/**
 * scan reads a page of T and shows the top-level calls (depth 0) found in it: the first page
 * in place of what the list held (fresh), else the next page after it. Open nodes are read
 * again (T may have grown under them).
 */
async function scan(gen, fresh) {
  const from = fresh ? 0 : scanned;
  const ans = await app.call('trace.frames', {offset: from, limit: PAGE});
  if (gen !== generation) return;
  if (fresh) {
    known = new Map();
    funcs = new Set();
    roots = [];
  }
  learn(ans.frames);
  roots.push(...ans.frames.filter((f) => f.depth === 0));
  if (fresh) {
    const open = [...expanded];
    kids = new Map();
    for (const i of open) {
      const got = await app.call('trace.children', {frame: i}).catch(() => null);
      if (gen !== generation) return;
      if (got) {
        learn(got.frames);
        kids.set(i, got.frames);
      } else expanded.delete(i);
    }
  }
  total = ans.total;
  scanned = from + ans.frames.length;
  rebuild();
  const more = $('.more-roots', pane());
  more.hidden = scanned >= total || !matches.el.hidden;
  more.textContent = `Scan further for top-level calls (${scanned} of ${total} frames read)`;
  if (matches.el.hidden) status();
}

function status(text) {
  const el = treeStatus();
  el.classList.remove('error');
  el.textContent = text ?? `${plural(total, 'call')} recorded`;
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

/** rebuild lays the open nodes out as rows again, keeping the active row on its frame. */
function rebuild() {
  const was = tree.rows[tree.active];
  const rows = [];
  const walk = (list, level) => {
    const shown = list.length;
    list.forEach((f, k) => {
      rows.push({f, level, pos: k + 1, size: shown});
      const open = expanded.has(f.index) && kids.has(f.index);
      if (!open) return;
      const all = kids.get(f.index);
      const n = Math.min(all.length, limit.get(f.index) ?? CHUNK);
      walk(all.slice(0, n), level + 1);
      if (n < all.length) rows.push({more: f, level: level + 1, rest: all.length - n});
    });
  };
  walk(roots, 1);
  if (was) {
    const i = rows.findIndex((r) => (was.f ? r.f?.index === was.f.index : r.more?.index === was.more?.index));
    tree.active = i >= 0 ? i : Math.min(tree.active, rows.length - 1);
  }
  tree.set(rows);
}

/** row renders one call: its twisty, name, outcome, arguments and number of callees. */
function callRow(r, i, list, why = null) {
  const f = r.f;
  const fid = fidOf(f);
  const n = f.callees?.length ?? 0;
  const flat = list === matches;
  const open = expanded.has(f.index);
  const el = h('div', {class: 'call', role: 'treeitem', id: rowID(list, i), 'aria-level': r.level,
    'aria-setsize': r.size, 'aria-posinset': r.pos, 'aria-expanded': n && !flat ? String(open) : null,
    dataset: {frame: f.index, row: i}});
  el.style.paddingLeft = `${(r.level - 1) * INDENT}px`; // through the CSSOM: the page's CSP allows no style attribute
  const twisty = n && !flat
    ? h('button', {type: 'button', class: 'twisty', tabindex: '-1', 'aria-hidden': 'true', 'aria-expanded': String(open),
      title: `${open ? 'Hide' : 'Show'} the ${plural(n, 'call')} of ${shortFID(fid)}`,
      onclick: guard(() => toggle(f, i), treeError)})
    : h('span', {class: 'twisty leaf', 'aria-hidden': 'true'});
  el.append(h('div', {class: 'row'},
    twisty,
    h('button', {type: 'button', class: 'open', tabindex: '-1', title: `${fid}: show what it did`,
      onclick: guard(() => {
        list.active = i;
        list.el.focus({preventScroll: true});
        list.mark();
        return stepInto(fid);
      }, treeError)}, shortFID(fid)),
    outcome(f),
    n && !flat ? h('span', {class: 'kids', 'aria-hidden': 'true', title: plural(n, 'callee')}, String(n)) : null,
    h('span', {class: 'sub'},
      why ? h('span', {class: 'why'}, `matched ${why}`) : null,
      f.args.length ? h('span', {class: 'args', title: argsText(f.args)}, '(', argsText(f.args), ')') : null)));
  return el;
}

function treeRow(r, i, list) {
  if (r.f) return callRow(r, i, list);
  const f = r.more;
  const more = Math.min(r.rest, CHUNK);
  const el = h('div', {class: 'call more-calls', role: 'treeitem', id: rowID(list, i), 'aria-level': r.level, dataset: {row: i}},
    h('button', {type: 'button', class: 'quiet', tabindex: '-1', onclick: () => showMore(f, CHUNK)},
    `Show ${plural(more, 'more call')}`),
  r.rest > CHUNK ? h('button', {type: 'button', class: 'quiet show-all', tabindex: '-1', onclick: () => showMore(f, Infinity)},
    `Show all ${r.rest} left`) : null);
  el.style.paddingLeft = `${(r.level - 1) * INDENT}px`;
  return el;
}

function matchRow(r, i, list) {
  return callRow(r, i, list, why(r.f, query));
}

/** why says where a frame matched the filter text: its name, an argument, its return or exception. */
export function why(f, q) {
  const low = q.toLowerCase();
  if (`${f.fid.func}#${f.fid.index}`.toLowerCase().includes(low)) return 'in the name';
  const arg = f.args.find((a) => `${a.name}=${a.value}`.toLowerCase().includes(low));
  if (arg) return `in the argument ${arg.name}`;
  if ((f.return ?? '').toLowerCase().includes(low)) return 'in the return value';
  if (f.exception && exceptionText(f.exception).toLowerCase().includes(low)) return 'in the exception';
  return null;
}

function showMore(f, n) {
  limit.set(f.index, (limit.get(f.index) ?? CHUNK) + n);
  rebuild();
  tree.el.focus({preventScroll: true});
}

function outcome(f) {
  if (f.status === 'raised' && f.exception) {
    return h('span', {class: 'exc', title: exceptionText(f.exception)}, '⚠ ', exceptionText(f.exception));
  }
  if (f.status === 'unfinished') return h('span', {class: 'unfinished'}, 'unfinished');
  return h('span', {class: 'ret', title: f.return ?? ''}, '→ ', f.return ?? '');
}

async function toggle(f, i) {
  tree.active = i;
  if (expanded.has(f.index)) {
    expanded.delete(f.index);
    rebuild();
  } else await open(f);
  tree.el.focus({preventScroll: true});
}

/** children reads a frame's callees once. */
async function children(f) {
  if (kids.has(f.index)) return kids.get(f.index);
  const ans = await app.call('trace.children', {frame: f.index});
  learn(ans.frames);
  kids.set(f.index, ans.frames);
  return ans.frames;
}

async function open(f) {
  const session = app.session;
  await children(f);
  if (session !== app.session) return;
  expanded.add(f.index);
  rebuild();
}

/** filter lists the calls whose fid, arguments, return or exception contain the filter text. */
async function filter() {
  const q = $('.tree-filter', pane()).value.trim();
  if (!q || !app.session) {
    query = '';
    matches.el.hidden = true;
    tree.el.hidden = false;
    $('.more-roots', pane()).hidden = scanned >= total;
    status();
    tree.draw(true);
    const i = currentRow(tree);
    if (i != null) tree.focusRow(i, true);
    return;
  }
  const session = app.session;
  const ans = await app.call('trace.frames', {query: q, limit: MATCHES});
  if (session !== app.session || q !== $('.tree-filter', pane()).value.trim()) return;
  query = q;
  app.clearReport();
  matches.active = -1;
  matches.el.hidden = false;
  tree.el.hidden = true;
  $('.more-roots', pane()).hidden = true;
  matches.set(ans.frames.map((f, k) => ({f, level: 1, pos: k + 1, size: ans.frames.length})));
  status(ans.total > ans.frames.length
    ? `${ans.total} calls match “${q}”; the first ${ans.frames.length} are listed`
    : `${plural(ans.total, 'call')} match “${q}”`);
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
  let changed = false;
  for (let k = 0; k < chain.length - 1; k++) {
    const f = chain[k];
    const list = await children(f);
    if (session !== app.session) return;
    if (!expanded.has(f.index)) {
      expanded.add(f.index);
      changed = true;
    }
    const at = list.findIndex((g) => g.index === chain[k + 1].index);
    if (at >= (limit.get(f.index) ?? CHUNK)) {
      limit.set(f.index, at + 1);
      changed = true;
    }
  }
  if (changed) rebuild();
  const i = currentRow(tree);
  if (i != null && !tree.el.hidden) {
    const keep = document.activeElement === tree.el;
    tree.focusRow(i, true);
    if (keep) tree.el.focus({preventScroll: true});
  }
  tree.mark();
  matches.mark();
}

/** keys moves through the tree: up and down between calls, right opens, left closes or goes up. */
function keys(e, list) {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const r = list.rows[list.active];
  const page = Math.max(1, Math.floor($('.tree-scroll', pane()).clientHeight / ROW) - 1);
  switch (e.key) {
    case 'ArrowDown':
      list.focusRow(list.active + 1);
      break;
    case 'ArrowUp':
      list.focusRow(list.active - 1);
      break;
    case 'PageDown':
      list.focusRow(list.active + page);
      break;
    case 'PageUp':
      list.focusRow(list.active - page);
      break;
    case 'Home':
      list.focusRow(0);
      break;
    case 'End':
      list.focusRow(list.rows.length - 1);
      break;
    case 'ArrowRight':
      if (list !== tree || !r?.f || !(r.f.callees?.length)) break;
      if (!expanded.has(r.f.index)) guard(() => open(r.f), treeError)();
      else list.focusRow(list.active + 1);
      break;
    case 'ArrowLeft': {
      if (list !== tree || !r) break;
      if (r.f && expanded.has(r.f.index)) {
        expanded.delete(r.f.index);
        rebuild();
        break;
      }
      const up = list.rows.findLastIndex((o, k) => k < list.active && o.level < r.level);
      if (up >= 0) list.focusRow(up);
      break;
    }
    case 'Enter':
    case ' ':
      if (r?.f) guard(() => stepInto(fidOf(r.f)), treeError)();
      else if (r?.more) showMore(r.more, CHUNK);
      break;
    default:
      return;
  }
  e.preventDefault();
}

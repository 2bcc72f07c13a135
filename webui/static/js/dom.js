// DOM helpers shared by the panes. Everything the server sends is put on the page as text
// (never as HTML), so a value that looks like markup stays a value.

import {notRendered, parse, size, structured} from './pyrepr.js';

/**
 * h builds an element: h('button', {class: 'x', onclick: fn, 'aria-label': 'y'}, 'text', child).
 * Attributes that are null, undefined or false are left out; true sets an empty attribute.
 */
export function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v == null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  el.append(...kids.flat(Infinity).filter((k) => k != null && k !== false));
  return el;
}

/** $ finds one element below root (the document by default). */
export function $(sel, root = document) {
  return root.querySelector(sel);
}

/** LONG is the length from which a value is shown clipped, with a button that shows it all. */
const LONG = 120;

/**
 * expandable returns el, clipped to two lines when long is set, followed by a button that shows
 * it whole and back. The element's text is never cut: only its display is.
 */
function expandable(el, long) {
  if (!long) return el;
  el.classList.add('clip');
  const label = (open) => (open ? 'show less' : 'show all');
  const btn = h('button', {type: 'button', class: 'more quiet', 'aria-expanded': 'false'}, label(false));
  btn.addEventListener('click', () => {
    const open = el.classList.toggle('clip') === false;
    btn.setAttribute('aria-expanded', String(open));
    btn.textContent = label(open);
  });
  return h('span', {class: 'expandable'}, el, btn);
}

/**
 * value shows one repr as code: clipped when long, with a button that shows it all; a dict, list,
 * tuple, set or object also opens as a tree of its entries, as a debugger's variables view
 * (the tree replaces the text while open: a value is shown once). A value the recording kept
 * only part of says so, and opts.full (when given: an async function that answers the whole
 * repr) offers to record it in full. opts.name labels the tree's first row (`x =`); opts.text is
 * the code's text when it is not the value alone (a change: `x = 1 (was 0)`).
 */
export function value(text, cls = 'val', opts = {}) {
  const shown = opts.text ?? text;
  const code = h('code', {class: cls}, shown);
  const node = parse(text);
  const parts = [code];
  if (structured(node)) {
    let tree = null;
    const btn = h('button', {type: 'button', class: 'tree-toggle quiet', 'aria-expanded': 'false',
      'aria-label': `show the entries of ${opts.name?.replace(/ =$/, '') ?? 'the value'}`}, '▸');
    btn.addEventListener('click', () => {
      const open = btn.getAttribute('aria-expanded') !== 'true';
      btn.setAttribute('aria-expanded', String(open));
      btn.textContent = open ? '▾' : '▸';
      tree ??= h('div', {class: 'pytree-root'}, h('span', {class: 'pytree-head'}, opts.name ? `${opts.name} ` : '', size(node)), entries(node));
      if (open) code.after(tree);
      else tree.remove();
      code.hidden = open;
    });
    parts.unshift(btn);
  } else if (shown.length > LONG) {
    return withPartial(expandable(code, true), node, text, cls, opts);
  }
  if (shown.length > LONG) code.classList.add('clip');
  return withPartial(h('span', {class: 'value-view'}, parts), node, text, cls, opts);
}

/** entries renders a node's entries as a list, each opening its own entries on demand. */
function entries(node) {
  return h('ul', {class: 'pytree', role: 'group'}, node.entries.map((e, k) => {
    const v = e.value;
    const label = h('span', {class: 'pykey'}, e.key ? e.key.text : e.name ?? (node.kind === 'set' ? '·' : String(k)));
    const text = h('code', {class: 'pyv', title: v.text.length > 80 ? v.text : null}, v.text);
    if (!structured(v)) return h('li', {}, h('span', {class: 'twisty-space'}), label, ': ', text);
    let kids = null;
    const li = h('li', {});
    const btn = h('button', {type: 'button', class: 'tree-toggle quiet', 'aria-expanded': 'false',
      'aria-label': `show the entries of ${e.key ? e.key.text : e.name ?? k}`}, '▸');
    btn.addEventListener('click', () => {
      const open = btn.getAttribute('aria-expanded') !== 'true';
      btn.setAttribute('aria-expanded', String(open));
      btn.textContent = open ? '▾' : '▸';
      kids ??= entries(v);
      text.textContent = open ? size(v) : v.text;
      if (open) li.append(kids);
      else kids.remove();
    });
    li.append(btn, label, ': ', text);
    return li;
  }));
}

/**
 * withPartial adds, to a value the recording kept only part of, what was cut and (opts.full)
 * a button that records it in full: it shows the whole value in place of the part.
 */
function withPartial(el, node, text, cls, opts) {
  if (!node.partial) return el;
  const what = notRendered(text) ? 'not rendered by the recording (its budget)' : 'cut by the recording';
  const note = h('span', {class: 'partial', title: 'the recording keeps a bounded repr of values'}, what);
  const out = h('span', {class: 'value-partial'}, el, ' ', note);
  if (opts.full) {
    const btn = h('button', {type: 'button', class: 'record-full quiet', title: opts.fullTitle ?? 'record the whole value'}, 'Record in full');
    btn.addEventListener('click', async () => {
      btn.disabled = true;
      btn.textContent = 'Recording…';
      try {
        const whole = await opts.full();
        const shown = opts.text != null ? opts.text.replace(text, whole) : whole;
        out.replaceWith(h('span', {class: 'value-full'}, value(whole, cls, {...opts, text: shown, full: null}),
          h('span', {class: 'full-note'}, ' recorded in full')));
      } catch (err) {
        btn.disabled = false;
        btn.textContent = 'Record in full';
        note.textContent = `${what}; recording it failed: ${err.message}`;
      }
    });
    out.append(' ', btn);
  }
  return out;
}

/** splitFID cuts "module:qualname#N" into its module and the rest ("qualname#N"). */
function splitFID(fid) {
  const i = fid.lastIndexOf(':', fid.lastIndexOf('#') >>> 0);
  return i < 0 ? ['', fid] : [fid.slice(0, i), fid.slice(i + 1)];
}

/**
 * shortFID is the name shown in compact places: the qualname and index ("bulk_rate#3"), or the
 * full fid when the qualname alone says little ("orders:<module>#1").
 */
export function shortFID(fid) {
  const [mod, rest] = splitFID(fid);
  return mod && rest.startsWith('<') ? fid : rest;
}

/** fidCode renders a full fid with its module muted: its text is the fid itself. */
export function fidCode(fid) {
  const [mod, rest] = splitFID(fid);
  return h('code', {class: 'fid', title: fid}, mod ? h('span', {class: 'mod'}, mod + ':') : null, rest);
}

/** fidOf writes an adi.Frame's fid ({func, index}) the way agents type it. */
export function fidOf(frame) {
  return `${frame.fid.func}#${frame.fid.index}`;
}

/** argsText writes arguments as "a=1, b=2". */
export function argsText(args) {
  return (args ?? []).map((a) => `${a.name}=${a.value}`).join(', ');
}

/** exceptionText writes an exception the way Python's last traceback line does. */
export function exceptionText(e) {
  return e.message ? `${e.type}: ${e.message}` : e.type;
}

/** plural writes "1 frame" or "3 frames". */
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** throttle calls fn at most once per ms, always once more after the last request. */
export function throttle(fn, ms) {
  let timer = null;
  let again = false;
  const run = () => {
    timer = null;
    if (!again) return;
    again = false;
    fn();
    timer = setTimeout(run, ms);
  };
  return () => {
    again = true;
    if (timer === null) run();
  };
}

/** PAGE_WORDS are the API's names of commands, as the page offers them (its buttons and forms). */
const PAGE_WORDS = [
  [/adi\.break func \[cond\]/g, 'the Breakpoints form'],
  [/adi\.break\b/g, 'the Breakpoints form'],
  [/adi\.continue\b/g, 'Continue'],
  [/adi\.prev\b/g, 'Prev'],
  [/adi\.step_out\b/g, 'Step out'],
  [/adi\.step_into\b/g, 'opening a call'],
  [/adi\.execute stmt\b/g, 'the Execute box'],
  [/adi\.execute\b/g, 'the Execute box'],
  [/adi\.clear\b/g, 'Clear'],
];

/** forPage rewrites a server message for the page: a command's API name becomes its button. */
export function forPage(text) {
  let out = text ?? '';
  for (const [re, word] of PAGE_WORDS) out = out.replace(re, word);
  return out;
}

// DOM helpers shared by the panes. Everything the server sends is put on the page as text
// (never as HTML), so a value that looks like markup stays a value.

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

/** value shows one repr as code, expandable when long. */
export function value(text, cls = 'val') {
  return expandable(h('code', {class: cls}, text), text.length > LONG);
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

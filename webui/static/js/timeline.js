// The call timeline: T drawn as an icicle in time order. Each call is a bar under its caller's,
// starting where it was called and as wide as the part of T it spans (itself and every call it
// made); calls that raised are red and the frame under inspection is outlined. Clicking a bar
// opens that call. It is drawn when its box is opened, from trace.frames (at most MAX frames).

import {app} from './app.js';
import {$, exceptionText, fidOf, h, plural} from './dom.js';
import {guard, stepInto} from './nav.js';

/** MAX is how many frames the timeline reads at most. */
const MAX = 20000;
/** DEPTH is how many levels it draws at most. */
const DEPTH = 40;
/** BAR is the height of a level, in px: thinner when there are many (the box stays under 300 px). */
const barOf = (levels) => Math.max(6, Math.min(18, Math.floor(300 / levels)));
const SVG = 'http://www.w3.org/2000/svg';

const box = () => $('#flt .timeline');
let frames = null; // T as read, or null when it must be read again
let reading = null;

export function init() {
  app.on('session', () => {
    frames = null;
    $('.timeline-box', box()).replaceChildren();
    box().hidden = false;
  });
  app.on('trace', () => {
    frames = null;
    if (box().open) draw();
  });
  app.on('flt', mark);
  box().addEventListener('toggle', () => {
    if (box().open) draw();
  });
  $('.timeline-box', box()).addEventListener('click', guard((e) => {
    const bar = e.target.closest?.('[data-frame]');
    const f = bar && frames?.[Number(bar.dataset.frame)];
    return f ? stepInto(fidOf(f)) : null;
  }));
}

async function read() {
  const session = app.session;
  const out = [];
  for (;;) {
    const ans = await app.call('trace.frames', {offset: out.length, limit: 5000});
    if (session !== app.session) return null;
    out.push(...ans.frames);
    if (!ans.frames.length || out.length >= Math.min(ans.total, MAX)) return {frames: out, total: ans.total};
  }
}

/** spans computes, for T in order (depth first), where each frame's part of T ends. */
export function spans(list) {
  const end = new Array(list.length).fill(list.length);
  const open = [];
  list.forEach((f, i) => {
    while (open.length && list[open.at(-1)].depth >= f.depth) end[open.pop()] = i;
    open.push(i);
  });
  return end;
}

async function draw() {
  if (!app.session) return;
  const session = app.session;
  if (!frames) {
    reading ??= read().finally(() => {
      reading = null;
    });
    const got = await reading;
    if (!got || session !== app.session) return;
    frames = got.frames;
    frames.total = got.total;
  }
  const end = spans(frames);
  const n = frames.length;
  const levels = Math.min(DEPTH, 1 + frames.reduce((m, f) => Math.max(m, f.depth), 0));
  const width = 1000;
  const BAR = barOf(levels);
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${levels * BAR}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('height', String(levels * BAR));
  svg.setAttribute('role', 'img');
  const raised = frames.filter((f) => f.status === 'raised').length;
  svg.setAttribute('aria-label', `Call timeline: ${plural(n, 'call')} in time order, ${levels} levels deep, ${raised} raised`);
  for (let i = 0; i < n; i++) {
    const f = frames[i];
    if (f.depth >= DEPTH) continue;
    const x = (i / n) * width;
    const w = ((end[i] - i) / n) * width;
    if (w < 0.15 && f.status !== 'raised') continue; // thinner than a pixel: its caller's bar stands for it
    const r = document.createElementNS(SVG, 'rect');
    r.setAttribute('x', x.toFixed(3));
    r.setAttribute('y', String(f.depth * BAR));
    r.setAttribute('width', Math.max(w, 0.15).toFixed(3));
    r.setAttribute('height', String(BAR - (BAR > 8 ? 2 : 1)));
    r.setAttribute('class', `bar${f.status === 'raised' ? ' exc' : ''}`);
    r.dataset.frame = String(i);
    const t = document.createElementNS(SVG, 'title');
    t.textContent = `${f.fid.func}#${f.fid.index}${f.exception ? ` raised ${exceptionText(f.exception)}` : ''}`;
    r.append(t);
    svg.append(r);
  }
  const note = frames.total > n ? h('p', {class: 'timeline-help'}, `The first ${n} of ${frames.total} calls.`) : null;
  $('.timeline-box', box()).replaceChildren(svg, note ?? '');
  mark();
}

/** mark outlines the frame under inspection. */
function mark() {
  const svg = $('.timeline-box svg', box());
  if (!svg) return;
  for (const r of svg.querySelectorAll('.cur')) r.classList.remove('cur');
  const cur = app.flt?.frame.frame;
  if (cur != null) svg.querySelector(`[data-frame="${cur}"]`)?.classList.add('cur');
}

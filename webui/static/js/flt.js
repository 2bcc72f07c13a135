// The FLT pane: the frame under inspection with its arguments and outcome, and its function's
// source with the executed lines marked. Under each line that ran: the state changes it made
// (ΔS: new, modified `x = 1 (was 0)`, deleted, appended, a new equal object; values open as
// trees, see dom.js's value), what its test
// decided (an if, elif, while, case or assert line: True, taken; False, not taken), the calls it made (open one: step into it), the
// exception it raised or the value it yielded. A loop's header line carries the iteration
// picker: lines inside the loop show the values of the iteration picked. The caller link steps
// out.

import {app} from './app.js';
import {$, exceptionText, fidCode, h, plural, shortFID, value} from './dom.js';
import {functionRange} from './source.js';
import {segment, view, visits} from './loops.js';
import {diff} from './pyrepr.js';
import {PAGE, guard, move, stepInto} from './nav.js';

const pane = () => $('#flt');
const sources = new Map();
let selection = new Map();
let selected = null;
let shownFor = null; // the frame whose iterations selection holds
let model = null; // what the pane shows: {flt, lines, range, nodes, visit, shown, loops}

export function init() {
  app.on('session', () => {
    sources.clear();
    clear();
  });
  app.on('flt', (flt) => show(flt).catch((err) => app.report(err)));
}

function clear() {
  model = null;
  shownFor = null;
  $('#flt-title .fid').textContent = '—';
  for (const sel of ['.flt-where', '.flt-args', '.outcome', '.flt-notes', '.source']) $(sel, pane()).replaceChildren();
  $('.flt-empty', pane()).hidden = false;
}

/**
 * show renders an FLT; the iterations picked stay when it is the same frame again. An FLT longer
 * than a page (flt.page.steps > PAGE) is shown from the steps of the iterations picked, which
 * adi.flt answers with the loops they lie in and each line's count (paged).
 */
async function show(flt) {
  const f = flt.frame;
  if (shownFor !== f.frame) {
    selection = new Map();
    selected = null;
    shownFor = f.frame;
  }
  const long = flt.page && flt.page.steps > flt.steps.length;
  const shownFLT = long ? await pageOf(f.fid) : flt;
  const lines = await source(f.file, shownFLT.steps);
  if (app.flt !== flt) return; // another FLT arrived meanwhile
  const whole = /:<module>#\d+$/.test(f.fid);
  const ran = long ? Object.keys(flt.page.hits).map(Number) : flt.steps.map((s) => s.line);
  const range = functionRange(lines, f.line, whole, ran);
  model = {flt: shownFLT, lines, range};
  setSteps(shownFLT);
  const hadFocus = pane().contains(document.activeElement);
  $('.flt-empty', pane()).hidden = true;
  head(flt);
  body();
  // The control that had the focus is gone (a callee or the caller was opened): the pane takes it.
  if (hadFocus && !pane().contains(document.activeElement)) pane().focus({preventScroll: true});
}

/** pageOf reads the steps of a long FLT shown for the iterations picked (adi.flt with steps). */
async function pageOf(fid) {
  const ans = await app.call('adi.flt', {frame: fid, steps: {iterations: Object.fromEntries(selection), limit: PAGE}});
  return ans.result;
}

/** setSteps derives what the pane needs of the steps it holds: all of τ, or a page of it. */
function setSteps(flt) {
  model.flt = flt;
  const p = flt.page;
  model.paged = Boolean(p && p.steps > flt.steps.length) || Boolean(p?.loops && p.total < p.steps);
  if (model.paged) {
    model.pageLoops = new Map(p.loops.map((l) => [l.header, {header: l.header, selected: l.selected, exit: l.exit || null,
      iterations: Array.from({length: l.last - l.first + 1}, (_, k) => l.first + k)}]));
    model.hits = new Map(Object.entries(p.hits).map(([line, n]) => [Number(line), n]));
    model.visitOf = (j) => p.visit[j];
    model.follows = (j) => (j === 0 ? p.index[0] === 0 : p.index[j] === p.index[j - 1] + 1);
  } else {
    model.visit = visits(flt.steps);
    model.nodes = segment(flt.steps);
    model.visitOf = (j) => model.visit[j];
    model.follows = () => true;
  }
}

/** source reads a file's lines once per session (trace.source); the steps stand in without it. */
async function source(file, steps) {
  if (!sources.has(file)) {
    try {
      sources.set(file, (await app.call('trace.source', {file})).lines);
    } catch {
      const lines = [];
      for (const s of steps) lines[s.line - 1] = s.stmt;
      return Array.from(lines, (l) => l ?? '');
    }
  }
  return sources.get(file);
}

function head(flt) {
  const f = flt.frame;
  $('#flt-title .fid').replaceWith(fidCode(f.fid));
  const where = f.caller
    ? ['called by ', h('button', {type: 'button', class: 'link caller', title: `step out to ${f.caller} (o)`,
      onclick: guard(() => move('step_out'), () => [$('#inspect .nav-error'), $('#app > .quick-nav .quick-error')])}, '↑ ', shortFID(f.caller)), ` at line ${f.call_line}`]
    : ['entry frame (no caller)'];
  $('.flt-where', pane()).replaceChildren(...where, h('span', {class: 'file'}, ` · ${f.file}:${f.line} · T[${f.frame}]`));
  const args = f.args.length ? f.args.flatMap((a) => [h('dt', {}, a.name), h('dd', {}, value(a.value, 'val', {name: `${a.name} =`, full: fullAt(0, a.name)}))])
    : [h('dt', {}, 'arguments'), h('dd', {}, 'none')];
  $('.flt-args', pane()).replaceChildren(...args);
  $('.outcome', pane()).replaceChildren(outcome(f));
  const notes = [];
  if (flt.dropped) notes.push(`${plural(flt.dropped, 'step')} not recorded (the step limit was reached).`);
  if (flt.recording?.partial) notes.push('The recording is partial: the run had not finished when it was read (it is live, or was cut off).');
  if (flt.recording?.limit) notes.push(`Recording stopped at the ${flt.recording.limit} limit: later calls are missing.`);
  if (model.paged) notes.push(`${plural(flt.page.steps, 'step')}: the page holds those of the loop iterations picked (no charts).`);
  $('.flt-notes', pane()).textContent = notes.join(' ');
}

function outcome(f) {
  if (f.status === 'raised' && f.exception) {
    return h('span', {class: 'exc'}, 'raised ', h('code', {}, exceptionText(f.exception)));
  }
  if (f.status === 'unfinished') return h('span', {class: 'unfinished'}, 'unfinished: still active when recorded (the run is live, or was cut off)');
  return h('span', {class: 'ret'}, 'returned ', value(f.return ?? 'None'));
}

/** body renders the source lines; focus stays on the control that had it. */
function body() {
  const {flt, lines, range, nodes} = model;
  const focusKey = document.activeElement?.dataset?.focus;
  const {shown, loops} = model.paged ? {shown: flt.steps.map((_, i) => i), loops: model.pageLoops} : view(flt.steps, nodes, selection);
  model.shown = shown;
  model.loops = loops;
  const byLine = new Map();
  for (const i of shown) byLine.set(flt.steps[i].line, [...(byLine.get(flt.steps[i].line) ?? []), i]);
  let hits = model.hits;
  if (!model.paged) {
    hits = new Map();
    for (const s of flt.steps) hits.set(s.line, (hits.get(s.line) ?? 0) + 1);
  }
  const rows = [];
  for (let n = range[0]; n <= range[1]; n++) rows.push(row(n, lines[n - 1] ?? '', hits.get(n) ?? 0, byLine.get(n) ?? [], loops.get(n)));
  $('.source', pane()).replaceChildren(...rows);
  if (focusKey) pane().querySelector(`[data-focus="${focusKey}"]`)?.focus();
}

function row(n, text, hits, steps, loop) {
  const cls = ['line', hits ? 'ran' : 'idle', steps.length ? 'shown' : '', n === selected ? 'selected' : ''].join(' ');
  const info = [];
  if (loop) info.push(loopNav(loop), charts(loop));
  for (const i of steps) info.push(...stepInfo(i, steps.length > 1));
  return h('li', {class: cls, dataset: {line: n}},
    h('span', {class: 'gutter'},
      h('button', {type: 'button', class: 'lineno', 'aria-pressed': String(n === selected), dataset: {focus: `line-${n}`},
        'aria-label': `line ${n}${hits ? `, ran ${plural(hits, 'time')}` : ', not run'}: select it for execute`,
        onclick: () => selectLine(n)}, String(n)),
      h('span', {class: 'hits', title: hits ? `ran ${plural(hits, 'time')}` : 'not run', 'aria-hidden': 'true'}, hits ? `${hits}×` : '')),
    h('code', {class: 'code'}, text),
    info.length ? h('div', {class: 'info'}, info) : null);
}

/** stepInfo renders what one execution of a line did. */
function stepInfo(i, several) {
  const s = model.flt.steps[i];
  const out = [];
  if (several) out.push(h('span', {class: 'visit'}, `visit ${model.visitOf(i)}`));
  if (s.resume) out.push(h('span', {class: 'tag'}, 'resumed'));
  if (s.test != null) {
    out.push(h('span', {class: `branch ${s.test ? 'taken' : 'not-taken'}`, title: 'what the line\'s test decided'},
      s.test ? '→ True: taken' : '→ False: not taken'));
  }
  if (s.changes?.length) out.push(h('ul', {class: 'changes', 'aria-label': 'state changes'}, s.changes.map((c) => change(c, i))));
  for (const c of s.calls ?? []) out.push(callee(c));
  if (s.raise) out.push(h('span', {class: 'exc'}, 'raised ', h('code', {}, exceptionText(s.raise))));
  if (s.yield != null) out.push(h('span', {class: 'yield'}, 'yielded ', value(s.yield)));
  return out;
}

/**
 * change renders one element of ΔS, named by what changed (the variable and the path inside it,
 * `p.count`, `rows[2]`), in the FLT text's words (`self.count = 1 (was 0)`); .change-text holds
 * exactly that text. A long value that changed inside (a dict, list, object) is shown once, with
 * what was added, removed and changed instead of the whole old value. A value the recording cut
 * offers to record it in full (adi.execute prints its repr where the statement left it).
 */
function change(c, i) {
  const kind = {new: 'new', mod: 'modified', del: 'deleted', app: 'appended', same: 'new object'}[c.kind] ?? c.kind;
  const target = c.name + (c.path ?? '');
  const d = c.kind === 'mod' && c.old != null && c.new != null && c.new.length + c.old.length > LONG_CHANGE ? diff(c.old, c.new) : null;
  let text;
  let shown = c.new ?? '';
  if (c.kind === 'mod') text = d ? `${target} = ${c.new}` : `${target} = ${c.new} (was ${c.old})`;
  else if (c.kind === 'del') {
    text = target;
    shown = target;
  } else if (c.kind === 'app') text = `${target}: appended ${c.new}`;
  else if (c.kind === 'same') text = `${target} = ${c.new} (a new object, equal to the old)`;
  else text = `${target} = ${c.new}`;
  const expr = c.name.replace(/^global /, '') + (c.kind === 'app' ? '' : c.path ?? '');
  const full = c.kind === 'del' ? null : fullAt(i + 1, expr);
  return h('li', {class: `change ${c.kind}`},
    h('span', {class: 'kind'}, kind), ' ',
    c.kind === 'del' ? value(text, 'change-text') : value(shown, 'change-text', {text, name: `${target} =`, full}),
    c.kind === 'del' && c.old ? h('span', {class: 'was'}, ' was ', value(c.old)) : null,
    d ? diffList(d) : null);
}

/** LONG_CHANGE is the length of old and new values from which a change shows a diff. */
const LONG_CHANGE = 60;

/** diffList shows what a change added, removed and changed inside a value. */
function diffList(d) {
  const items = [
    ...d.added.map((x) => h('li', {class: 'added'}, h('span', {class: 'sign', 'aria-label': 'added'}, '+ '), h('code', {}, x.path ? `${x.path}: ${x.value}` : x.value))),
    ...d.removed.map((x) => h('li', {class: 'removed'}, h('span', {class: 'sign', 'aria-label': 'removed'}, '− '), h('code', {}, x.path ? `${x.path}: ${x.value}` : x.value))),
    ...d.changed.map((x) => h('li', {class: 'changed'}, h('span', {class: 'sign', 'aria-label': 'changed'}, '~ '), h('code', {}, `${x.path}: ${x.value} (was ${x.old})`))),
  ];
  const n = d.added.length + d.removed.length + d.changed.length;
  return h('div', {class: 'value-diff'},
    h('span', {class: 'diff-head'}, n ? `what changed (${n}):` : 'nothing changed in what was recorded', d.partial ? ' (the recording cut the values: the rest is not compared)' : ''),
    n ? h('ul', {}, items) : null);
}

/**
 * fullAt returns a function that records the whole repr of expr as the frame had it before step
 * j (the step after the change): adi.execute re-runs the program to that step and prints it.
 * null when there is no such step or expr is not a name and path (a path cut in the middle).
 */
function fullAt(j, expr) {
  const s = model.flt.steps[j];
  if (!s || !model.follows(j) || expr.includes('…') || !/^[A-Za-z_]/.test(expr)) return null;
  const fid = model.flt.frame.fid;
  const visit = model.visitOf(j);
  return async () => {
    const ans = await app.call('adi.execute', {frame: fid, stmt: `print(repr(${expr}))`, line: s.line, visit});
    const r = ans.result;
    if (r.exception) throw new Error(exceptionText(r.exception));
    return (r.output ?? '').replace(/\n$/, '');
  };
}

/** callee renders a call a line made: a button that steps into it, with its outcome. */
function callee(c) {
  if (!c.fid) return h('span', {class: 'callee missing'}, 'a call that is not in the recording');
  const out = c.exception
    ? h('span', {class: 'exc'}, ' raised ', exceptionText(c.exception))
    : h('span', {class: 'ret'}, ' → ', c.return ?? '');
  return h('button', {type: 'button', class: 'callee', dataset: {fid: c.fid, frame: c.frame, focus: `callee-${c.frame}`},
    title: `step into ${c.fid} (i)`, onclick: guard(() => stepInto(c.fid))}, '↘ ', shortFID(c.fid), out);
}

/** loopNav is the iteration picker of the loop whose header is this line. */
function loopNav(loop) {
  const {header, iterations, selected: cur, exit} = loop;
  const at = iterations.indexOf(cur);
  const label = (n) => (n === exit ? `${n} (exit)` : String(n));
  // A menu for a few iterations; a slider for many (a menu of 10,000 options helps nobody).
  const pick = iterations.length > MENU
    ? h('input', {type: 'range', class: 'iter-slider', min: 0, max: iterations.length - 1, step: 1, value: at,
      'aria-label': `iteration of the loop at line ${header}`, 'aria-valuetext': `iteration ${label(cur)} of ${iterations.length}`,
      dataset: {focus: `loop-pick-${header}`}, onchange: (e) => pickIteration(header, iterations[Number(e.target.value)])})
    : h('select', {'aria-label': `iteration of the loop at line ${header}`, dataset: {focus: `loop-pick-${header}`},
      onchange: (e) => pickIteration(header, Number(e.target.value))},
    iterations.map((n) => h('option', {value: n, selected: n === cur}, label(n))));
  return h('div', {class: 'loop-nav', role: 'group', 'aria-label': `loop at line ${header}`},
    h('span', {class: 'loop-label'}, 'iteration'),
    h('button', {type: 'button', class: 'iter-prev', 'aria-label': 'previous iteration', disabled: at <= 0,
      dataset: {focus: `loop-prev-${header}`}, onclick: () => stepIteration(header, -1)}, '◀'),
    pick,
    h('button', {type: 'button', class: 'iter-next', 'aria-label': 'next iteration', disabled: at >= iterations.length - 1,
      dataset: {focus: `loop-next-${header}`}, onclick: () => stepIteration(header, 1)}, '▶'),
    iterations.length > MENU ? h('output', {class: 'iter-value'}, label(cur)) : null,
    h('span', {class: 'loop-count'}, `of ${iterations.length}`));
}

/** MENU is the most iterations picked from a menu; more get a slider. */
const MENU = 20;
/** CHARTS is the most variables charted per loop. */
const CHARTS = 4;
const SVG = 'http://www.w3.org/2000/svg';

/**
 * series collects, for a loop, the numeric values each variable (and path) was set to in each
 * iteration (the last one set in it): Map name → Map iteration → number.
 */
export function series(steps, header) {
  const out = new Map();
  for (const s of steps) {
    const pos = s.loop?.find((p) => p.header === header);
    if (!pos) continue;
    for (const c of s.changes ?? []) {
      if (c.kind !== 'new' && c.kind !== 'mod') continue;
      const v = Number(c.new);
      if (c.new == null || c.new.trim() === '' || !Number.isFinite(v)) continue;
      const key = c.name + (c.path ?? '');
      if (!out.has(key)) out.set(key, new Map());
      out.get(key).set(pos.iteration, v);
    }
  }
  return out;
}

/**
 * charts draws a small chart per numeric variable the loop changes (those that take two values
 * or more): its value in each iteration; clicking it picks the nearest iteration.
 */
function charts(loop) {
  const {header, iterations, selected: cur} = loop;
  if (model.paged) return null; // a page holds one iteration of each loop: nothing to chart
  const all = [...series(model.flt.steps, header)].filter(([, m]) => new Set(m.values()).size > 1).slice(0, CHARTS);
  if (!all.length || iterations.length < 2) return null;
  const W = 240;
  const H = 36;
  const x = (k) => 2 + (k / (iterations.length - 1)) * (W - 4);
  return h('div', {class: 'loop-charts'}, all.map(([name, values]) => {
    const vs = [...values.values()];
    const lo = Math.min(...vs);
    const hi = Math.max(...vs);
    const y = (v) => H - 3 - ((v - lo) / (hi - lo || 1)) * (H - 6);
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('width', String(W));
    svg.setAttribute('height', String(H));
    svg.setAttribute('class', 'loop-chart');
    svg.dataset.name = name;
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', `${name} over the ${plural(iterations.length, 'iteration')}: from ${lo} to ${hi}; click a point to pick its iteration`);
    const points = iterations.map((n, k) => (values.has(n) ? `${x(k).toFixed(1)},${y(values.get(n)).toFixed(1)}` : null)).filter(Boolean);
    const line = document.createElementNS(SVG, 'polyline');
    line.setAttribute('points', points.join(' '));
    svg.append(line);
    const k = iterations.indexOf(cur);
    const mark = document.createElementNS(SVG, 'line');
    mark.setAttribute('x1', x(k).toFixed(1));
    mark.setAttribute('x2', x(k).toFixed(1));
    mark.setAttribute('y1', '0');
    mark.setAttribute('y2', String(H));
    mark.setAttribute('class', 'at');
    svg.append(mark);
    svg.addEventListener('click', (e) => {
      const r = svg.getBoundingClientRect();
      const at = Math.round(((e.clientX - r.left) / r.width * W - 2) / (W - 4) * (iterations.length - 1));
      pickIteration(header, iterations[Math.min(Math.max(at, 0), iterations.length - 1)]);
    });
    const now = values.get(cur);
    return h('figure', {class: 'loop-var'},
      h('figcaption', {}, h('code', {}, name), ` ${lo} … ${hi}`, now != null ? h('span', {class: 'now'}, ` · now ${now}`) : null),
      svg);
  }));
}

function pickIteration(header, n) {
  selection.set(header, n);
  if (model.paged) {
    const flt = app.flt;
    pageOf(flt.frame.fid).then((page) => {
      if (app.flt !== flt || selection.get(header) !== n) return; // another frame or pick since
      setSteps(page);
      body();
      if (selected != null) announceLine();
    }).catch((err) => app.report(err));
    return;
  }
  body();
  if (selected != null) announceLine();
}

/** stepIteration moves a loop's picker back or forward. */
function stepIteration(header, delta) {
  const loop = model?.loops.get(header);
  if (!loop) return;
  const at = loop.iterations.indexOf(loop.selected) + delta;
  if (at >= 0 && at < loop.iterations.length) pickIteration(header, loop.iterations[at]);
}

/** stepSelectedLoop moves the iteration of the loop around the selected line ([ and ]). */
export function stepSelectedLoop(delta) {
  if (!model) return;
  const header = loopOfLine(selected) ?? model.loops.keys().next().value;
  if (header != null) stepIteration(header, delta);
}

function loopOfLine(n) {
  if (n == null) return null;
  if (model.loops.has(n)) return n;
  const i = model.shown.find((j) => model.flt.steps[j].line === n);
  return i == null ? null : model.flt.steps[i].loop?.at(-1)?.header ?? null;
}

/** selectLine marks a line as the one execute runs at (and i steps into its call). */
function selectLine(n) {
  selected = n;
  for (const li of pane().querySelectorAll('.source li.line')) {
    const on = Number(li.dataset.line) === n;
    li.classList.toggle('selected', on);
    li.querySelector('.lineno').setAttribute('aria-pressed', String(on));
  }
  pane().querySelector(`.source li[data-line="${n}"]`)?.scrollIntoView({block: 'nearest'});
  announceLine();
}

/** announceLine tells the execute box the selected line and the visit shown for it. */
function announceLine() {
  const i = model.shown.find((j) => model.flt.steps[j].line === selected);
  app.emit('line', {line: selected, visit: i == null ? 1 : model.visitOf(i)});
}

/** moveLine selects the next (1) or previous (-1) line that ran in what is shown (j and k). */
export function moveLine(delta) {
  if (!model) return;
  const lines = [...new Set(model.shown.map((i) => model.flt.steps[i].line))].sort((a, b) => a - b);
  if (!lines.length) return;
  const at = lines.indexOf(selected);
  const next = at < 0 ? (delta > 0 ? lines[0] : lines.at(-1)) : lines[Math.min(Math.max(at + delta, 0), lines.length - 1)];
  selectLine(next);
}

/** selectedCallee is the call i steps into: the focused one, else the selected line's, else the first. */
export function selectedCallee() {
  const focused = document.activeElement?.closest?.('#flt button.callee');
  if (focused) return focused.dataset.fid;
  const onLine = selected != null && pane().querySelector(`.source li[data-line="${selected}"] button.callee`);
  return (onLine || pane().querySelector('.source button.callee'))?.dataset.fid ?? null;
}

// The execute box: run a statement in a frame at one visit of one line (adi.execute, which
// re-runs the program to that point and changes nothing) and show what it printed, its value
// or the exception it raised. It follows the FLT pane: the frame shown, the line selected and
// the visit of that line in the loop iterations picked.

import {app} from './app.js';
import {$, exceptionText, h, value} from './dom.js';
import {guard} from './nav.js';

const pane = () => $('#execute');
const form = () => $('.exec-form', pane());

export function init() {
  form().addEventListener('submit', guard(run));
  app.on('session', () => {
    form().frame.value = '';
    $('.exec-result', pane()).replaceChildren();
  });
  app.on('flt', (flt) => {
    form().frame.placeholder = flt.frame.fid;
    if (form().frame.value === flt.frame.fid) return;
    form().frame.value = flt.frame.fid;
    form().line.value = '';
    form().visit.value = '';
  });
  app.on('line', ({line, visit}) => {
    form().line.value = line;
    form().visit.value = visit;
  });
}

/** focus puts the cursor in the statement box (the e key). */
export function focus() {
  form().stmt.focus();
}

async function run(e) {
  e.preventDefault();
  const f = form();
  const params = {frame: f.frame.value.trim(), stmt: f.stmt.value};
  if (f.line.value) params.line = Number(f.line.value);
  if (f.visit.value) params.visit = Number(f.visit.value);
  const out = $('.exec-result', pane());
  const button = $('button[type=submit]', f);
  button.disabled = true;
  out.replaceChildren(h('p', {class: 'running'}, `Running in ${params.frame}…`));
  try {
    const ans = await app.call('adi.execute', params);
    out.replaceChildren(result(ans.result));
  } catch (err) {
    out.replaceChildren(h('p', {class: 'exc'}, err.message));
  } finally {
    button.disabled = false;
  }
}

function result(r) {
  const rows = [['At', h('code', {}, `${r.fid}, line ${r.line}, visit ${r.visit}`)]];
  if (r.output) rows.push(['Output', h('pre', {class: 'output'}, r.output)]);
  if (r.value != null) rows.push(['Value', value(r.value, 'exec-value')]);
  if (r.exception) rows.push(['Exception', h('code', {class: 'exc exec-exception'}, exceptionText(r.exception))]);
  if (!r.output && r.value == null && !r.exception) rows.push(['Result', 'ran; no output and no value']);
  return h('dl', {class: 'exec'}, rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

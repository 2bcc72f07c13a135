// The inspection pane: Σ of the selected session. The frame under inspection with the buttons
// that move it (adi.prev, adi.continue, adi.step_out) and what the last move said; the
// breakpoints, added with an optional condition (adi.break) and cleared (adi.clear).

import {app} from './app.js';
import {$, fidCode, forPage, h} from './dom.js';
import {guard, move, refreshState} from './nav.js';

const pane = () => $('#inspect');
const navError = () => [$('.nav-error', pane()), $('#app > .quick-nav .quick-error')];
const breakError = () => $('.break-error', pane());
/** condInfo holds what adi.break said of each conditional breakpoint: {error, matches}. */
let condInfo = new Map();
const condKey = (b) => `${b.func}\n${b.cond}`;

export function init() {
  // The inspection pane's buttons, and the FLT pane's copy of them (in reach on a small window).
  for (const btn of document.querySelectorAll('[data-nav]')) btn.addEventListener('click', guard(() => move(btn.dataset.nav), navError));
  $('.break-form', pane()).addEventListener('submit', guard(addBreakpoint, breakError));
  $('.clear-all', pane()).addEventListener('click', guard(() => clear({}), navError));
  app.on('session', () => {
    message('');
    condInfo = new Map();
    render(null);
  });
  app.on('state', render);
  app.on('nav', (nav) => message(nav.message));
  app.on('funcs', (names) => {
    const short = new Set(names.map((n) => n.slice(n.lastIndexOf(':') + 1)).filter((n) => !n.startsWith('<')));
    const sorted = [...short].sort();
    $('#func-names').replaceChildren(...sorted.map((n) => h('option', {value: n})));
    $('.break-form input[name=func]', pane()).placeholder = sorted.length ? `function, e.g. ${sorted[0]}` : 'function';
  });
}

/** message shows what the last move or change said, in the page's words. */
function message(text) {
  $('.nav-message', pane()).textContent = forPage(text);
  $('#app > .quick-nav .quick-message').textContent = forPage(text);
}

function render(state) {
  const cur = $('.current', pane());
  if (state?.current) cur.replaceWith(h('span', {class: 'current'}, fidCode(state.current)));
  else cur.replaceChildren('—');
  $('.index', pane()).textContent = state ? `(T[${state.current_frame}] of ${state.frames})` : '';
  for (const btn of document.querySelectorAll('[data-nav]')) btn.disabled = !state;
  const bps = state?.breakpoints ?? [];
  $('.breakpoints', pane()).replaceChildren(...bps.map((b) => breakpoint(b, bps)));
  $('.no-breakpoints', pane()).hidden = bps.length > 0;
  $('.clear-all', pane()).hidden = bps.length < 2;
}

/**
 * breakpoint renders one breakpoint; one whose condition raised is marked, with the error, and
 * says when it never stops because of it.
 */
function breakpoint(b, all) {
  // adi.state reports a condition that raised (condition_error, matches), so the mark survives a
  // reload; what adi.break answered stands in until it does.
  const info = !b.cond ? null
    : b.condition_error ? {error: b.condition_error, matches: b.matches ?? 0} : condInfo.get(condKey(b));
  const broken = info?.error;
  return h('li', {class: `breakpoint${broken ? ' broken' : ''}`},
    h('code', {}, b.func, b.cond ? h('span', {class: 'cond'}, ` if ${b.cond}`) : null),
    h('span', {class: 'when'}, b.cond ? ` checked at ${b.at}` : ' every call'),
    h('button', {type: 'button', class: 'quiet', 'aria-label': `clear the breakpoint ${b.func}${b.cond ? ' if ' + b.cond : ''}`,
      onclick: guard(() => clearOne(b, all), navError)}, 'Clear'),
    broken ? h('p', {class: 'cond-error'},
      h('strong', {}, info.matches ? '⚠ its condition failed on some calls: ' : '⚠ never stops: its condition failed: '),
      info.error) : null);
}

async function addBreakpoint(e) {
  e.preventDefault();
  const form = e.target;
  const params = {func: form.func.value.trim()};
  if (form.cond.value.trim()) params.cond = form.cond.value.trim();
  // a conditional breakpoint that matched moves to its first match, as continue would
  const r = await move('break', params);
  if (r?.breakpoint?.cond) condInfo.set(condKey(r.breakpoint), {error: r.condition_error ?? '', matches: r.matches ?? r.hits ?? 0});
  form.reset();
}

/**
 * clearOne removes one breakpoint. adi.clear without a condition removes every breakpoint of the
 * function, so the function's conditional ones are set again afterwards.
 */
async function clearOne(b, all) {
  if (b.cond) {
    await clear({func: b.func, cond: b.cond});
    return;
  }
  await app.call('adi.clear', {func: b.func});
  for (const o of all.filter((o) => o.func === b.func && o.cond)) await app.call('adi.break', {func: o.func, cond: o.cond});
  await refreshState();
}

async function clear(params) {
  const ans = await app.call('adi.clear', params);
  message(ans.text.trim().split('\n').join(' '));
  await refreshState();
}

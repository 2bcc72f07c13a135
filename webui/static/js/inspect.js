// The inspection pane: Σ of the selected session. The frame under inspection with the buttons
// that move it (adi.prev, adi.continue, adi.step_out) and what the last move said; the
// breakpoints, added with an optional condition (adi.break) and cleared (adi.clear).

import {app} from './app.js';
import {$, fidCode, h} from './dom.js';
import {guard, move, refreshState} from './nav.js';

const pane = () => $('#inspect');

export function init() {
  for (const btn of pane().querySelectorAll('[data-nav]')) btn.addEventListener('click', guard(() => move(btn.dataset.nav)));
  $('.break-form', pane()).addEventListener('submit', guard(addBreakpoint));
  $('.clear-all', pane()).addEventListener('click', guard(() => clear({})));
  app.on('session', () => {
    $('.nav-message', pane()).textContent = '';
    render(null);
  });
  app.on('state', render);
  app.on('nav', (nav) => {
    $('.nav-message', pane()).textContent = nav.message;
  });
  app.on('funcs', (names) => {
    const short = new Set(names.map((n) => n.slice(n.lastIndexOf(':') + 1)).filter((n) => !n.startsWith('<')));
    $('#func-names').replaceChildren(...[...short].sort().map((n) => h('option', {value: n})));
  });
}

function render(state) {
  const cur = $('.current', pane());
  if (state?.current) cur.replaceWith(h('span', {class: 'current'}, fidCode(state.current)));
  else cur.replaceChildren('—');
  $('.index', pane()).textContent = state ? `(T[${state.current_frame}] of ${state.frames})` : '';
  for (const btn of pane().querySelectorAll('[data-nav]')) btn.disabled = !state;
  const bps = state?.breakpoints ?? [];
  $('.breakpoints', pane()).replaceChildren(...bps.map((b) => breakpoint(b, bps)));
  $('.no-breakpoints', pane()).hidden = bps.length > 0;
  $('.clear-all', pane()).hidden = bps.length < 2;
}

function breakpoint(b, all) {
  return h('li', {class: 'breakpoint'},
    h('code', {}, b.func, b.cond ? h('span', {class: 'cond'}, ` if ${b.cond}`) : null),
    h('span', {class: 'when'}, b.cond ? ` checked at ${b.at}` : ' every call'),
    h('button', {type: 'button', class: 'quiet', 'aria-label': `clear the breakpoint ${b.func}${b.cond ? ' if ' + b.cond : ''}`,
      onclick: guard(() => clearOne(b, all))}, 'Clear'));
}

async function addBreakpoint(e) {
  e.preventDefault();
  const form = e.target;
  const params = {func: form.func.value.trim()};
  if (form.cond.value.trim()) params.cond = form.cond.value.trim();
  const ans = await app.call('adi.break', params);
  $('.nav-message', pane()).textContent = ans.text.trim().split('\n').join(' ');
  form.reset();
  await refreshState();
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
  $('.nav-message', pane()).textContent = ans.text.trim().split('\n').join(' ');
  await refreshState();
}

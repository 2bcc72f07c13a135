// Keyboard shortcuts (listed in the page's Keys dialog). They act only when the focus is not in
// a text field, and never with Ctrl, Alt or Meta (those belong to the browser).

import {app} from './app.js';
import {$} from './dom.js';
import {guard, move, stepInto} from './nav.js';
import * as flt from './flt.js';
import * as calltree from './calltree.js';
import * as execute from './execute.js';

const actions = {
  n: () => move('continue'),
  p: () => move('prev'),
  o: () => move('step_out'),
  i: () => {
    const fid = flt.selectedCallee();
    return fid ? stepInto(fid) : null;
  },
  j: () => flt.moveLine(1),
  k: () => flt.moveLine(-1),
  ']': () => flt.stepSelectedLoop(1),
  '[': () => flt.stepSelectedLoop(-1),
  e: () => execute.focus(),
  '/': () => calltree.focusFilter(),
  '?': () => showKeys(),
};

export function init() {
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.altKey || e.metaKey || e.defaultPrevented || typing(e.target)) return;
    const act = actions[e.key];
    if (!act || (!app.session && e.key !== '?')) return;
    e.preventDefault();
    guard(act, 'npo'.includes(e.key) ? () => [$('#inspect .nav-error'), $('#app > .quick-nav .quick-error')] : null)();
  });
  $('#keys-button').addEventListener('click', showKeys);
}

function typing(el) {
  return el instanceof HTMLElement && (el.isContentEditable || el.matches('input, textarea, select') || el.closest('dialog[open]'));
}

function showKeys() {
  $('#keys').showModal();
}

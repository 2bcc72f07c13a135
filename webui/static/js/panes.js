// The tabs of a small window. Wide windows show the three panes side by side and no tabs. A
// medium one (1100 px and less) shows the FLT pane and, beside it, one of the others: the calls
// (sessions and call tree) or the inspection pane (breakpoints, execute). A narrow one (600 px
// and less) shows one pane at a time. Opening a call on a narrow window shows its frame.

import {app} from './app.js';
import {$} from './dom.js';

const narrow = matchMedia('(max-width: 600px)');
let shownFrame = null;

export function init() {
  for (const tab of document.querySelectorAll('.tabs [role=tab]')) tab.addEventListener('click', () => show(tab.dataset.tab));
  $('.tabs').addEventListener('keydown', (e) => {
    const tabs = [...document.querySelectorAll('.tabs [role=tab]')].filter((t) => t.offsetParent !== null);
    const at = tabs.indexOf(document.activeElement);
    const to = {ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1}[e.key];
    if (at < 0 || to == null) return;
    const t = tabs[(to + tabs.length) % tabs.length];
    t.focus();
    show(t.dataset.tab);
    e.preventDefault();
  });
  app.on('flt', (flt) => {
    const moved = shownFrame !== null && shownFrame !== flt.frame.frame;
    shownFrame = flt.frame.frame;
    if (moved && narrow.matches && $('#app').dataset.tab !== 'flt') show('flt');
  });
  app.on('session', () => {
    shownFrame = null;
  });
  narrow.addEventListener('change', () => show($('#app').dataset.tab));
  show($('#app').dataset.tab);
}

/** show makes a pane the one shown on a small window. */
export function show(name) {
  $('#app').dataset.tab = name;
  // A medium window shows the frame beside the other panes: its tab is not offered, the calls' is.
  const tabbed = name === 'flt' && !narrow.matches ? 'left' : name;
  for (const tab of document.querySelectorAll('.tabs [role=tab]')) {
    const on = tab.dataset.tab === tabbed;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
  }
}

// Moving the inspection index i of the selected session (adi.continue, adi.prev, adi.step_into,
// adi.step_out) and loading the FLT of T[i]. Only the answer to the latest move is shown: a
// slower answer to an earlier one never replaces it.

import {app} from './app.js';

let latest = 0;

/**
 * PAGE is the most steps of τ an FLT answer carries (the steps param): a longer FLT is read a
 * page at a time, the steps of the loop iterations picked (flt.js), so a frame of 100,000 steps
 * is not 30 MB of JSON in the page.
 */
export const PAGE = 2000;

/** refreshState reloads Σ (breakpoints, the frame under inspection) and tells the panes. */
export async function refreshState() {
  const session = app.session;
  const ans = await app.call('adi.state');
  if (session !== app.session) return;
  app.state = ans.result;
  app.emit('state', app.state);
}

/** showCurrent loads the FLT of the frame under inspection. */
export async function showCurrent() {
  const my = ++latest;
  const session = app.session;
  // A live session whose watches caught nothing yet has no frame: its tree fills as they catch.
  if (app.info?.live && !app.info.frames) return;
  const ans = await app.call('adi.flt', {steps: {limit: PAGE}});
  if (my !== latest || session !== app.session) return;
  setFLT(ans.result);
}

/**
 * move runs a navigation method (continue, prev, step_into, step_out, and break, which moves to
 * the first match of a conditional breakpoint) and shows where it led. It resolves with the
 * method's result: an adi.NavResult, or break's answer when it did not move (no "command").
 */
export async function move(method, params = {}) {
  if (!app.session) return null;
  const my = ++latest;
  const session = app.session;
  const ans = await app.call('adi.' + method, {...params, steps: {limit: PAGE}});
  const nav = ans.result;
  if (my !== latest || session !== app.session) return nav;
  if (!nav.command) {
    app.emit('nav', {message: ans.text.trim().split('\n').join(' ')});
  } else {
    app.emit('nav', nav);
    if (nav.flt) setFLT(nav.flt);
    else if (!app.flt || app.flt.frame.frame !== nav.frame) await showCurrent();
  }
  await refreshState();
  return nav;
}

/**
 * init re-reads Σ and the FLT shown when T changed under them: an editor's run goes on, and
 * the frame under inspection follows where the editor stops.
 */
export function init() {
  app.on('trace', () => {
    if (app.session) Promise.all([refreshState(), showCurrent()]).catch((err) => app.report(err));
  });
}

/** stepInto moves to one frame (a fid, "module:qualname#N"). */
export function stepInto(fid) {
  return move('step_into', {frame: fid});
}

function setFLT(flt) {
  app.flt = flt;
  app.emit('flt', flt);
}

/**
 * guard runs a user action and shows its error instead of dropping it: in where (an element, or a
 * function that returns one) when given, else in the page's alert. Its success clears the errors
 * shown before.
 */
export function guard(fn, where = null) {
  return (...args) => Promise.resolve().then(() => fn(...args)).then((v) => {
    app.clearReport();
    return v;
  }, (err) => app.report(err, typeof where === 'function' ? where() : where));
}

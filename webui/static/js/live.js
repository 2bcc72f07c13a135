// Live updates: the page subscribes to every session's events (session.subscribe) and keeps
// itself current as recordings run, here or through another face (an agent, the CLI, an editor
// session recorded by the bridge). A progress indicator shows each run under way with its
// elapsed time and output (screen readers hear only when a run starts and ends); the session
// list and, for the selected session, the call tree are re-read as runs finish and T grows. A
// slow poll of the session list also catches sessions recorded by other adi processes (they
// share the state directory, not the events).

import {RECORDING, app} from './app.js';
import {$, plural, throttle} from './dom.js';
import * as sessions from './sessions.js';
import {checkToken} from './token.js';

/** POLL is how often the session list is re-read while the page is visible. */
const POLL = 5000;

let ticker = null;
let connected = false;

/**
 * QUIET is how long a run may go without any event before the bar offers to stop showing it (a
 * run_finished that never came: the page cannot tell a silent run from a lost one).
 */
const QUIET = 30000;

export function init() {
  app.on('runs', progress);
  $('.progress-dismiss').addEventListener('click', () => {
    const now = performance.now();
    for (const r of [...app.runs].filter((r) => now - r.seen >= QUIET)) app.runs.delete(r);
    progress();
  });
  app.rpc.addEventListener('event', (e) => onEvent(e.detail));
  app.rpc.addEventListener('status', (e) => onStatus(e.detail));
  setInterval(() => {
    if (document.visibilityState === 'visible') sessions.refreshSoon();
  }, POLL);
}

/** subscribe asks for every session's events; it is called on each (re)connection. */
export function subscribe() {
  return app.rpc.call('session.subscribe', {});
}

const traceGrew = throttle(() => app.emit('trace'), 500);

function onEvent(ev) {
  const purpose = ev.purpose ?? 'run';
  const run = [...app.runs].find((r) => r.session === ev.session && r.purpose === purpose);
  switch (ev.kind) {
    case 'run_started':
      announce(`${ev.session}: ${purpose} started`);
      app.runs.add({session: ev.session, purpose, start: performance.now(), seen: performance.now(), lines: 0, tail: '', last: ''});
      break;
    case 'output':
      // Output comes in pieces (a line may be split across events), and names no run: it is
      // the latest run's of the session.
      for (const r of [...app.runs].filter((r) => r.session === ev.session).slice(-1)) {
        r.seen = performance.now();
        const lines = (r.tail + (ev.text ?? '')).split('\n');
        r.tail = lines.pop();
        r.lines += lines.length;
        r.last = [...lines, r.tail].filter((l) => l.trim()).at(-1) ?? r.last;
      }
      break;
    case 'trace_updated':
      if (ev.session === app.session) traceGrew();
      break;
    case 'run_finished':
      if (run) {
        app.runs.delete(run);
        announce(`${ev.session}: ${purpose} ${ev.error ? `failed: ${ev.error}` : 'finished'}`);
      }
      if (ev.session === app.session && RECORDING.has(purpose)) traceGrew();
      break;
    case 'closed':
      for (const r of [...app.runs].filter((r) => r.session === ev.session)) app.runs.delete(r);
      break;
  }
  if (ev.dropped) app.emit('trace');
  if (ev.kind !== 'output') sessions.refreshSoon();
  progress();
}

function announce(text) {
  $('#announce').textContent = text;
}

/** progress shows the runs under way, and ticks their elapsed time while there are any. */
function progress() {
  const box = $('#progress');
  if (!app.runs.size) {
    box.hidden = true;
    clearInterval(ticker);
    ticker = null;
    return;
  }
  const now = performance.now();
  const text = [...app.runs].map((r) => {
    const secs = ((now - r.start) / 1000).toFixed(1);
    const out = r.lines ? `, ${plural(r.lines, 'line')} of output${r.last ? `: ${r.last}` : ''}` : '';
    const quiet = now - r.seen >= QUIET ? `, no news for ${Math.round((now - r.seen) / 1000)} s` : '';
    return `${r.session}: ${r.purpose}, ${secs} s${out}${quiet}`;
  }).join(' · ');
  $('.progress-dismiss', box).hidden = ![...app.runs].some((r) => now - r.seen >= QUIET);
  $('.progress-text', box).textContent = text;
  box.title = text;
  box.hidden = false;
  ticker ??= setInterval(progress, 200);
}

function onStatus(state) {
  const conn = $('#conn');
  conn.dataset.state = state;
  conn.textContent = state === 'open' ? 'live' : 'reconnecting…';
  if (state !== 'open') {
    // A server started again has another token: say so rather than retry in silence.
    checkToken().then((refused) => refused && app.report(`${refused}. Open the URL that adi serve printed (it carries the access token).`), () => {});
    return;
  }
  if (!connected) {
    connected = true; // the first connection: the page loads itself (main.js)
    return;
  }
  subscribe()
    .then(() => sessions.refresh())
    .then(() => app.session && app.emit('trace'))
    .catch((err) => app.report(err));
}

// The page's shared state and the events that tell the parts it changed:
//   'session'  another session was selected (detail: its id)
//   'state'    Σ changed: breakpoints or the frame under inspection (detail: adi.StateSummary)
//   'flt'      the FLT shown changed (detail: adi.FLTView)
//   'nav'      a move answered (detail: adi.NavResult, whose message the inspection pane shows)
//   'trace'    T of the selected session grew or was recorded again
//   'line'     the line selected in the FLT changed (detail: {line, visit})
//   'funcs'    the call tree met more function names (detail: every name met so far)
// Each pane owns its part of the page and listens; none reaches into another's elements.

import {$} from './dom.js';

/** RECORDING are the purposes of the runs that record T (bridge: session.create, an editor's run). */
export const RECORDING = new Set(['record T', 'editor run']);

class App extends EventTarget {
  /** rpc is the connection to adi serve (rpc.js). */
  rpc = null;
  /** session is the selected session's id, or null. */
  session = null;
  /** info is the selected session's Info (session.list / session.get). */
  info = null;
  /** state is Σ of the selected session (adi.state's result). */
  state = null;
  /** flt is the FLT under inspection (adi.FLTView). */
  flt = null;
  /** runs are the runs under way (live.js): {session, purpose, start, lines, tail, last}. */
  runs = new Set();

  /** recording reports whether a run that records T is under way for a session. */
  recording(session) {
    return [...this.runs].some((r) => r.session === session && RECORDING.has(r.purpose));
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, {detail}));
  }

  on(type, fn) {
    this.addEventListener(type, (e) => fn(e.detail));
  }

  /** call runs an API method on the selected session. */
  call(method, params = {}) {
    return this.rpc.call(method, {session: this.session, ...params});
  }

  /** report shows an error (or a message) in the page's alert bar. */
  report(err) {
    const box = $('#alert');
    $('.alert-text', box).textContent = err instanceof Error ? err.message : String(err);
    box.hidden = false;
  }
}

export const app = new App();

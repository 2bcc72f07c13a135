// The page's shared state and the events that tell the parts it changed:
//   'session'  another session was selected (detail: its id)
//   'state'    Σ changed: breakpoints or the frame under inspection (detail: adi.StateSummary)
//   'flt'      the FLT shown changed (detail: adi.FLTView)
//   'nav'      a move answered (detail: adi.NavResult, whose message the inspection pane shows)
//   'trace'    T of the selected session grew or was recorded again
//   'line'     the line selected in the FLT changed (detail: {line, visit})
//   'funcs'    the call tree met more function names (detail: every name met so far)
//   'runs'     the runs under way changed (app.runs)
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

  /**
   * call runs an API method on the selected session. When it fails, the runs it started that are
   * still shown as under way are dropped (a server that missed their run_finished).
   */
  call(method, params = {}) {
    const session = this.session;
    const t0 = performance.now();
    return this.rpc.call(method, {session, ...params}).catch((err) => {
      const stale = [...this.runs].filter((r) => r.session === session && r.start >= t0 && !RECORDING.has(r.purpose));
      if (stale.length) {
        for (const r of stale) this.runs.delete(r);
        this.emit('runs');
      }
      throw err;
    });
  }

  /**
   * report shows an error where it happened: in the element where (an error slot, .local-error, or several),
   * else in the page's alert, which floats over the page and never moves it. The next success
   * of a user action clears it (clearReport).
   */
  report(err, where = null) {
    const text = err instanceof Error ? err.message : String(err);
    if (where) {
      for (const el of [where].flat()) {
        el.textContent = text;
        el.classList.add('error');
      }
      return;
    }
    const box = $('#alert');
    $('.alert-text', box).textContent = text;
    box.hidden = false;
  }

  /** clearReport takes down the errors shown (a user action succeeded). */
  clearReport() {
    $('#alert').hidden = true;
    for (const el of document.querySelectorAll('.local-error.error')) {
      el.classList.remove('error');
      el.textContent = '';
    }
  }
}

export const app = new App();

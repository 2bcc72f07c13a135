// The sessions pane: every session the server knows (open, and closed ones left on disk) with
// its target command, state and counts; selecting one; recording a new one.

import {app} from './app.js';
import {$, h, plural, throttle} from './dom.js';
import {fragment, setFragment} from './token.js';
import {guard, refreshState, showCurrent} from './nav.js';

const pane = () => $('#sessions');

let sessions = [];

/** init wires the pane; load fills it and selects a session. */
export function init() {
  $('.create-form', pane()).addEventListener('submit', guard(create));
  app.on('state', () => refreshSoon());
}

/** load lists the sessions and selects the one named in the fragment, or the latest open one. */
export async function load() {
  await refresh();
  $('.create', pane()).open = sessions.length === 0;
  const wanted = fragment().get('session');
  const pick = sessions.find((s) => s.id === wanted) ?? [...sessions].reverse().find((s) => !s.closed) ?? sessions.at(-1);
  if (pick && pick.id !== app.session) await select(pick.id);
}

/** refresh re-reads the list (counts change as commands run). */
export async function refresh() {
  const ans = await app.rpc.call('session.list');
  sessions = ans.sessions;
  render();
  const cur = sessions.find((s) => s.id === app.session);
  if (cur) {
    const grew = app.info && cur.frames !== app.info.frames;
    app.info = cur;
    if (grew) app.emit('trace');
  }
}

/** refreshSoon refreshes at most a few times a second (events can come in bursts). */
export const refreshSoon = throttle(() => refresh().catch((err) => app.report(err)), 400);

/** select makes id the selected session and loads its state and current FLT. */
export async function select(id) {
  app.session = id;
  app.info = sessions.find((s) => s.id === id) ?? null;
  document.title = `${id} · adi viewer`;
  app.state = null;
  app.flt = null;
  const params = fragment();
  params.set('session', id);
  setFragment(params);
  render();
  app.emit('session', id);
  await refreshState();
  await showCurrent();
  await refresh(); // a closed session was reopened by the calls above
}

let shown = '';

/** render redraws the list when something in it changed, keeping the focus where it was. */
function render() {
  const items = sessions.map(item);
  const html = items.map((li) => li.outerHTML).join('');
  if (html === shown) return;
  shown = html;
  const focused = document.activeElement?.closest?.('#sessions .session')?.dataset.session;
  const list = $('.session-list', pane());
  list.replaceChildren(...items);
  if (focused) list.querySelector(`.session[data-session="${CSS.escape(focused)}"]`)?.focus();
  $('.empty', pane()).hidden = sessions.length > 0;
}

function item(s) {
  const recording = app.recording(s.id);
  let tags;
  if (recording) tags = [h('span', {class: 'tag live'}, 'recording')];
  else if (s.live) {
    // a live session: a program running under debugpy; its calls are what its watches caught
    tags = [h('span', {class: 'tag live', title: `live session, run ${s.live.run}`}, `live · ${s.live.state}`)];
  } else {
    tags = [
      s.closed ? h('span', {class: 'tag closed'}, 'closed') : h('span', {class: 'tag open'}, 'open'),
      s.exit_code === 0 ? h('span', {class: 'tag ok'}, 'exit 0')
        : h('span', {class: 'tag bad'}, s.exit_code < 0 ? 'running or killed' : `exit ${s.exit_code}`),
      s.partial ? h('span', {class: 'tag warn', title: 'the run ended before the recording was complete'}, 'partial') : null,
    ];
  }
  let counts = `${plural(s.frames, 'frame')} · ${plural(s.flts, 'FLT')} · ${plural(s.breakpoints, 'breakpoint')}`;
  if (recording && !s.frames) counts = 'the target is running';
  else if (s.live && !s.frames) counts = 'nothing caught yet (live.watch FUNC records its calls)';
  else if (s.closed && s.frames === 0) counts = 'on disk; select it to reopen';
  return h('li', {},
    h('button', {type: 'button', class: 'session', 'aria-current': s.id === app.session ? 'true' : null,
      dataset: {session: s.id}, onclick: guard(() => select(s.id))},
    h('span', {class: 'session-line'}, h('span', {class: 'sid'}, s.id), tags),
    h('code', {class: 'cmd', title: s.dir}, s.command),
    h('span', {class: 'counts'}, counts)));
}

async function create(e) {
  e.preventDefault();
  const form = e.target;
  const status = $('.form-status', form);
  const params = {command: form.command.value.trim()};
  if (form.dir.value.trim()) params.dir = form.dir.value.trim();
  if (form.session.value.trim()) params.id = form.session.value.trim();
  const button = $('button', form);
  button.disabled = true;
  status.textContent = `Recording ${params.command}…`;
  try {
    const ans = await app.rpc.call('session.create', params);
    status.textContent = ans.text.split('\n')[0];
    await refresh();
    await select(ans.session.id);
  } catch (err) {
    status.textContent = err.message;
  } finally {
    button.disabled = false;
  }
}

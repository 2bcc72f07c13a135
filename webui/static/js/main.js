// The viewer's entry point: it checks the access token (token.js), connects to adi serve's
// WebSocket (rpc.js), wires the panes and selects a session. Without a valid token it shows how
// to open the page and loads nothing.

import {app} from './app.js';
import {$} from './dom.js';
import {Rpc} from './rpc.js';
import {checkToken, forgetToken, takeToken} from './token.js';
import * as sessions from './sessions.js';
import * as calltree from './calltree.js';
import * as flt from './flt.js';
import * as inspect from './inspect.js';
import * as execute from './execute.js';
import * as live from './live.js';
import * as keys from './keys.js';
import * as nav from './nav.js';
import * as panes from './panes.js';
import * as timeline from './timeline.js';

function locked(why) {
  $('.locked-why').textContent = why;
  $('#locked').hidden = false;
  $('#conn').textContent = 'no access';
  $('#conn').dataset.state = 'locked';
  $('#keys-button').hidden = true;
}

async function start() {
  $('.alert-close').addEventListener('click', () => {
    $('#alert').hidden = true;
  });
  if (!takeToken()) {
    locked('This page was opened without a token, so it cannot read anything from adi serve.');
    return;
  }
  const refused = await checkToken().catch((err) => `adi serve cannot be reached: ${err.message}`);
  if (refused) {
    forgetToken();
    locked(refused);
    return;
  }
  app.rpc = new Rpc(`ws://${location.host}/rpc`);
  for (const part of [nav, panes, sessions, calltree, flt, inspect, execute, live, keys, timeline]) part.init();
  await app.rpc.open();
  $('#app').hidden = false;
  await live.subscribe();
  await sessions.load();
}

start().catch((err) => app.report(err));

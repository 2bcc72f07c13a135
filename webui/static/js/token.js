// The access token: `adi serve` prints the viewer's URL with the token in the fragment
// (#token=…), which the browser never sends anywhere. The page moves it into the adi_token
// cookie (sent by the browser on every request to this server only) and removes it from the
// address bar, so it does not end up in bookmarks, screenshots or shared links.

const COOKIE = 'adi_token';

/** fragment returns the page's fragment parameters (#token=…&session=…). */
export function fragment() {
  return new URLSearchParams(location.hash.slice(1));
}

/** setFragment replaces the fragment without adding a history entry. */
export function setFragment(params) {
  const s = params.toString();
  history.replaceState(null, '', location.pathname + (s ? '#' + s : ''));
}

/** takeToken moves a token from the fragment into the cookie; it reports whether one is set. */
export function takeToken() {
  const params = fragment();
  const token = params.get('token');
  if (token) {
    document.cookie = `${COOKIE}=${token}; Path=/; SameSite=Strict`;
    params.delete('token');
    setFragment(params);
    return true;
  }
  return document.cookie.split(/;\s*/).some((c) => c.startsWith(COOKIE + '='));
}

/** forgetToken removes the cookie (after the server refused its token). */
export function forgetToken() {
  document.cookie = `${COOKIE}=; Path=/; SameSite=Strict; Max-Age=0`;
}

/**
 * checkToken asks the server whether the cookie's token is right, without opening the
 * WebSocket (whose refusals a page cannot read). It resolves with null when it is, else with
 * the server's one-line reason.
 */
export async function checkToken() {
  const res = await fetch('/api/rpc', {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({jsonrpc: '2.0', id: 0, method: 'server.info', params: {}}),
  });
  if (res.ok) return null;
  const body = await res.json().catch(() => ({}));
  return body.error ?? `adi serve refused the page (HTTP ${res.status})`;
}

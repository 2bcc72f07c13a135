#!/usr/bin/env bash
# Installs what adi and its test suites need on a fresh Debian/Ubuntu machine, and only what is
# missing. One script: `make test-deps` runs it whole (for `make test`), `make deps` (for
# `make demo`, `make test`) runs its runtime part, and `make bench` runs its bench part.
#   Debian packages (one apt-get call for all that are missing):
#     python3-debugpy  a python3 with debugpy (brings python3-pydevd): the runtime adi drives,
#     python3-pytest   the probe's pytest targets and the bundled pytest examples,
#     python3-sympy    the real library whose pytest test `make bench` records,
#     nodejs npm       the VS Code DebugClient suite and the browser suite run on Node.js 20,
#     chromium         the browser the viewer's end-to-end tests drive (/usr/bin/chromium);
#   npm packages, exactly as each committed package-lock.json pins them (npm ci), in
#     integration/vscode (@vscode/debugadapter-testsupport), integration/browser (playwright-core)
#     and integration/mcpts (@modelcontextprotocol/sdk, the MCP TypeScript SDK's client).
# `scripts/deps.sh runtime` (make deps) installs only python3 and debugpy: what running adi needs.
# `scripts/deps.sh dist` (make test-dist; `all` has them too) adds what installing adi's wheel
# into a fresh venv and for the user takes: python3-venv (venv's ensurepip) and python3-pip.
# `scripts/deps.sh bench` (make bench) installs everything above and the seven libraries of the
# benchmark's "real repositories" table, whose Debian packages it copies as user code:
#     python3-requests python3-flask python3-networkx python3-django python3-sklearn
#     python3-sympy python3-matplotlib
#   (make test does not need them).
# Without apt-get (or without root or sudo) it prints the exact command to run instead.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode=${1:-all}
case "$mode" in
  all|runtime|bench|dist) ;;
  *) echo "deps: unknown mode \"$mode\"; use: scripts/deps.sh [all|runtime|bench|dist]" >&2; exit 2 ;;
esac

need=()
py=${ADI_PYTHON:-/usr/bin/python3}
mods="debugpy"
[ "$mode" = all ] && mods="debugpy pytest sympy"
# Each module's Debian package is python3-MODULE (python3-sklearn installs sklearn).
[ "$mode" = bench ] && mods="debugpy pytest sympy requests flask networkx django sklearn matplotlib"
# One python start checks the modules (without importing them), so this is fast when nothing is missing.
missing=$("$py" -c 'import importlib.util as u, sys
print(" ".join(m for m in sys.argv[1:] if u.find_spec(m) is None))' $mods 2>/dev/null || echo "$mods")
for m in $missing; do need+=("python3-$m"); done
[ -x /usr/bin/python3 ] || need+=(python3)
if [ "$mode" != runtime ]; then
  # Debian ships venv's ensurepip in python3-venv and pip in python3-pip (make test-dist uses
  # /usr/bin/python3's).
  /usr/bin/python3 -c 'import ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
  /usr/bin/python3 -c 'import pip' >/dev/null 2>&1 || need+=(python3-pip)
fi
if [ "$mode" != runtime ] && [ "$mode" != dist ]; then
  command -v node >/dev/null 2>&1 || need+=(nodejs)
  command -v npm >/dev/null 2>&1 || need+=(npm)
  [ -x /usr/bin/chromium ] || need+=(chromium)
fi

if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; }; then
    echo "deps: installing ${need[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "deps: missing ${need[*]}; install them with: sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
fi
[ "$mode" != runtime ] && [ "$mode" != dist ] || exit 0

# npm ci deletes and reinstalls node_modules, so skip a suite already installed from its lockfile.
for suite in vscode browser mcpts; do
  dir="$root/integration/$suite"
  stamp="$dir/node_modules/.package-lock.json"
  if [ -f "$stamp" ] && [ "$stamp" -nt "$dir/package-lock.json" ]; then
    continue
  fi
  echo "deps: npm ci in integration/$suite" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
done

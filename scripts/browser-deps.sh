#!/usr/bin/env bash
# Installs what the browser viewer's end-to-end tests (integration/browser) need, and only what is
# missing: Debian's chromium at /usr/bin/chromium (apt-get), and the suite's npm packages exactly as
# the committed package-lock.json pins them (npm ci). Needs Node.js 20 and npm, and a reachable npm
# registry. Run from anywhere: scripts/browser-deps.sh
set -euo pipefail
dir="$(cd "$(dirname "$0")/../integration/browser" && pwd)"

if [ ! -x /usr/bin/chromium ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
  if ! command -v apt-get >/dev/null 2>&1 || { [ "$(id -u)" -ne 0 ] && [ -z "$sudo" ]; }; then
    echo "browser-deps: /usr/bin/chromium is missing; install it with: sudo apt-get install -y chromium" >&2
    exit 1
  fi
  echo "browser-deps: installing chromium" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "browser-deps: node and npm are missing; install Node.js 20 (Debian: apt-get install -y nodejs npm)" >&2
  exit 1
fi
# Already installed from this very lockfile: nothing to do (npm ci would reinstall).
if [ -f "$dir/node_modules/.package-lock.json" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ] \
  && [ -d "$dir/node_modules/playwright-core" ]; then
  exit 0
fi
cd "$dir"
npm ci --no-audit --no-fund --loglevel=error

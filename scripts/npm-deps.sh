#!/usr/bin/env bash
# Installs what the VS Code DebugClient suite (integration/vscode) needs: Node.js with npm (from
# Debian's packages when missing and we may install them), then the suite's npm packages exactly
# as the committed package-lock.json pins them (npm ci). Run from anywhere: scripts/npm-deps.sh
set -euo pipefail
dir="$(cd "$(dirname "$0")/../integration/vscode" && pwd)"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; }; then
    echo "npm-deps: installing nodejs npm" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
  else
    echo "npm-deps: node and npm are missing; install Node.js 20 (Debian: sudo apt-get install -y nodejs npm)" >&2
    exit 1
  fi
fi

# Already installed from this lockfile: nothing to do (npm ci would delete and reinstall).
if [ -d "$dir/node_modules/@vscode/debugadapter-testsupport" ] && [ -f "$dir/node_modules/.package-lock.json" ] \
  && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
  exit 0
fi
cd "$dir"
npm ci --no-audit --no-fund --loglevel=error

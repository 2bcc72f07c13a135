#!/usr/bin/env bash
# Installs the npm packages of the VS Code DebugClient suite (integration/vscode) exactly as the
# committed package-lock.json pins them. Needs Node.js 20 and npm; the npm registry must be
# reachable. Run from anywhere: scripts/npm-deps.sh
set -euo pipefail
dir="$(cd "$(dirname "$0")/../integration/vscode" && pwd)"
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "npm-deps: node and npm are missing; install Node.js 20 (Debian: apt-get install -y nodejs npm)" >&2
  exit 1
fi
# Already installed from this very lockfile: nothing to do (npm ci would reinstall).
if [ -f "$dir/node_modules/.package-lock.json" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ] \
  && [ -d "$dir/node_modules/@vscode/debugadapter-testsupport" ]; then
  exit 0
fi
cd "$dir"
npm ci --no-audit --no-fund --loglevel=error

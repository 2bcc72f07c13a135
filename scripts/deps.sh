#!/usr/bin/env bash
# Installs what adi needs on a fresh Debian/Ubuntu machine, and only what is missing:
#   - a python3 with debugpy (Debian: python3-debugpy, which brings python3-pydevd),
#   - python3-pytest (the probe's pytest fixtures and the bundled pytest examples).
# Without apt-get (or without root) it prints the exact command to run instead.
set -euo pipefail

need=()
py=${ADI_PYTHON:-/usr/bin/python3}
if ! "$py" -c 'import debugpy' >/dev/null 2>&1; then need+=(python3-debugpy); fi
if ! "$py" -c 'import pytest' >/dev/null 2>&1; then need+=(python3-pytest); fi
[ -x /usr/bin/python3 ] || need+=(python3)

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
fi
if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; }; then
  echo "deps: installing ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
  exit 0
fi
echo "deps: missing ${need[*]}; install them with: sudo apt-get install -y ${need[*]}" >&2
exit 1

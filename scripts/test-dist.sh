#!/usr/bin/env bash
# make test-dist: builds this machine's Linux wheel with scripts/dist.py and installs it the two ways
# users do, from the file alone (pip --no-index) and with no Go on PATH:
#   1. into a fresh venv (/usr/bin/python3 -m venv; Debian's python3-venv), with the venv's pip;
#   2. into Debian's python3 for the user (pip install --user --break-system-packages), in a
#      throwaway HOME;
# and checks the exact outputs and exit statuses of adi, python -m adi_bridge, adi-server through
# adi (mcp, demo), and that pip uninstall removes both binaries. Needs make deps (a python3 with
# debugpy, for the demo) and python3-venv and python3-pip (scripts/deps.sh dist).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
py=/usr/bin/python3
go=${GO:-go}
ver=$(cat VERSION)
goos=$("$go" env GOOS)
goarch=$("$go" env GOARCH)
gover=$("$go" env GOVERSION)
case "$goos/$goarch" in
  linux/amd64) tags=manylinux2014_x86_64.musllinux_1_1_x86_64 ;;
  linux/arm64) tags=manylinux2014_aarch64.musllinux_1_1_aarch64 ;;
  *) echo "test-dist: needs Linux on amd64 or arm64, not $goos/$goarch" >&2; exit 1 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
checks=0

# check WHAT WANT GOT: one exact comparison.
check() {
  checks=$((checks + 1))
  if [ "$2" != "$3" ]; then
    fails=$((fails + 1))
    printf 'test-dist: FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3" >&2
  fi
}
# run CMD...: runs it with stdout in $out, stderr in $err, exit status in $rc.
run() {
  set +e
  out=$("$@" 2>"$tmp/stderr")
  rc=$?
  set -e
  err=$(cat "$tmp/stderr")
}

echo "test-dist: scripts/dist.py --platforms $goos/$goarch" >&2
"$py" scripts/dist.py --out "$tmp/dist" --platforms "$goos/$goarch" >/dev/null
whl="$tmp/dist/adi_bridge-$ver-py3-none-$tags.whl"
run bash -c "cd '$tmp/dist' && sha256sum -c SHA256SUMS"
check "SHA256SUMS" "adi-$ver-$goos-$goarch.tar.gz: OK
adi_bridge-$ver-py3-none-$tags.whl: OK" "$out"
run tar -tzf "$tmp/dist/adi-$ver-$goos-$goarch.tar.gz"
check "the tarball's files" "adi-$ver-$goos-$goarch/adi
adi-$ver-$goos-$goarch/adi-server" "$out"
# The wheel's RECORD lists every other file with its sha256 and size; the binaries are executable.
run "$py" - "$whl" <<'EOF'
import base64, csv, hashlib, io, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
rec = [n for n in z.namelist() if n.endswith(".dist-info/RECORD")][0]
rows = {r[0]: r[1:] for r in csv.reader(io.StringIO(z.read(rec).decode()))}
for n in z.namelist():
    data = z.read(n)
    want = ["", ""] if n == rec else ["sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode(), str(len(data))]
    assert rows.pop(n) == want, n
    if "/scripts/" in n:
        assert z.getinfo(n).external_attr >> 16 & 0o111, n + " is not executable"
assert not rows, rows
print(" ".join(sorted(z.namelist())))
EOF
check "the wheel's files and RECORD" "adi_bridge-$ver.data/scripts/adi adi_bridge-$ver.data/scripts/adi-server adi_bridge-$ver.dist-info/METADATA adi_bridge-$ver.dist-info/RECORD adi_bridge-$ver.dist-info/WHEEL adi_bridge/__init__.py adi_bridge/__main__.py adi_bridge/_version.py" "$out$err"

# A clean environment: no Go, pip offline and quiet.
clean=(env -i HOME="$tmp/home" PATH=/usr/bin:/bin LANG=C.UTF-8 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null PIP_ROOT_USER_ACTION=ignore)
run "${clean[@]}" bash -c 'command -v go'
check "no go on PATH" "1" "$rc"

version="adi $ver ($gover $goos/$goarch)"
usage=$("$tmp/dist/build/$goos-$goarch/adi" --help)

# 1. A fresh venv, its own pip.
venv="$tmp/venv"
"${clean[@]}" "$py" -m venv "$venv"
run "${clean[@]}" "$venv/bin/python" -m pip install -q --no-index "$whl"
check "pip install into the venv" "0 " "$rc $err"
inv=(env -i HOME="$tmp/home" PATH="$venv/bin:/usr/bin:/bin" LANG=C.UTF-8)
run "${inv[@]}" adi --version
check "venv: adi --version" "0 $version" "$rc $out"
run "${inv[@]}" "$venv/bin/python" -m adi_bridge --version
check "venv: python -m adi_bridge --version" "0 $version" "$rc $out"
run "${inv[@]}" "$venv/bin/python" -m adi_bridge version --json-nonsense
check "venv: python -m adi_bridge passes on adi's exit status" "2" "$rc"
run "${inv[@]}" "$venv/bin/python" -m adi_bridge nosuch
check "venv: python -m adi_bridge nosuch" "2 adi: unknown command \"nosuch\" (adi help lists the commands)" "$rc $err"
run "${inv[@]}" adi --help
check "venv: adi --help" "0 $usage" "$rc $out"
check "venv: adi --help's first line" "adi: see a Python run one function invocation at a time (Frame Lifetime Traces over debugpy)." "${out%%$'\n'*}"
run "${inv[@]}" "$venv/bin/python" -c 'import adi_bridge; print(adi_bridge.__version__, adi_bridge.find_adi_bin(), adi_bridge.find_adi_bin("adi-server"))'
check "venv: adi_bridge.find_adi_bin" "$ver $venv/bin/adi $venv/bin/adi-server" "$out$err"
# adi runs adi-server beside it: MCP's initialize answers with the version.
run "${inv[@]}" "$venv/bin/python" -c '
import json, subprocess
p = subprocess.Popen(["adi", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test-dist", "version": "0"}}}
p.stdin.write((json.dumps(init) + "\n").encode()); p.stdin.flush()
info = json.loads(p.stdout.readline())["result"]["serverInfo"]
p.stdin.close(); p.wait(60)
print(info["name"], info["version"], p.returncode)'
check "venv: adi mcp (adi-server) initialize" "adi $ver 0" "$out$err"
# The demo records the bundled program with debugpy (the first python3 on PATH that has it).
mkdir -p "$tmp/work"
run bash -c "cd '$tmp/work' && timeout 120 ${inv[*]} ADI_STATE_DIR='$tmp/state' adi demo"
check "venv: adi demo exits 0" "0" "$rc"
check "venv: adi demo records the program" "target printed: total: 29.0" "$(grep -F 'target printed:' <<<"$out")"
check "venv: adi demo's exec" "Value: (10, 10, False)" "$(grep -F 'Value:' <<<"$out")"
run "${clean[@]}" "$venv/bin/python" -m pip uninstall -y -q adi-bridge
check "venv: pip uninstall" "0 no no" "$rc $([ -e "$venv/bin/adi" ] && echo yes || echo no) $([ -e "$venv/bin/adi-server" ] && echo yes || echo no)"

# 2. Debian's python3, for the user, in a throwaway HOME.
home="$tmp/user"
mkdir -p "$home"
user=(env -i HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null PIP_ROOT_USER_ACTION=ignore)
bsp=()
if "$py" -m pip install --help 2>/dev/null | grep -q -- --break-system-packages; then bsp=(--break-system-packages); fi
run "${user[@]}" "$py" -m pip install -q --user "${bsp[@]}" --no-index "$whl"
check "pip install --user" "0 " "$rc $(grep -v 'is not on PATH\|Consider adding this directory' <<<"$err" || true)"
run "${user[@]}" "$home/.local/bin/adi" --version
check "user: ~/.local/bin/adi --version" "0 $version" "$rc $out"
run "${user[@]}" "$py" -m adi_bridge --version
check "user: python3 -m adi_bridge --version (~/.local/bin not on PATH)" "0 $version" "$rc $out"
run "${user[@]}" "$py" -m adi_bridge nosuch
check "user: python3 -m adi_bridge nosuch" "2 adi: unknown command \"nosuch\" (adi help lists the commands)" "$rc $err"

if [ "$fails" -gt 0 ]; then
  echo "test-dist: $fails of $checks checks failed" >&2
  exit 1
fi
echo "test-dist: ok ($checks checks: $(basename "$whl") in a venv and for the user)"

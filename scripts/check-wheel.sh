#!/usr/bin/env bash
# Check the wheels that scripts/build-wheels.sh wrote to dist/, as a user gets them:
# - every platform's wheel carries only its own native binaries, as its tag says (tests/test_wheels.py);
# - this machine's wheel, installed ALONE into a fresh venv (no JupyterLab beside it), gives a
#   working `jupyter lab` with the labextension, the server extension and the figure server
#   (bundled Node, sharp and resvg) answering through Jupyter;
# - it installs and passes its start-up check on the lowest and highest Python it claims (3.9, 3.13).
set -euo pipefail
cd "$(dirname "$0")/.."
ls dist/*.whl >/dev/null 2>&1 || { echo "check-wheel: no wheels in dist/; run scripts/build-wheels.sh" >&2; exit 1; }
FIGURE_CHAT_WHEELS="$PWD/dist" .venv/bin/python -m pytest -q -p no:cacheprovider tests/test_wheels.py

machine=$(uname -m)
case "$machine" in
  x86_64) tag=manylinux_2_28_x86_64 ;;
  aarch64) tag=manylinux_2_28_aarch64 ;;
  *) echo "check-wheel: no wheel for $machine" >&2; exit 1 ;;
esac
wheel=$(ls "$PWD"/dist/*-py3-none-"$tag".whl)
out=$(mktemp -d)
server=
cleanup() {
  for job in $(jobs -p); do kill "$job" 2>/dev/null || true; done
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$out"
}
trap cleanup EXIT

quiet_pip() { "$@" 2> >(grep -v "^WARNING: Location" >&2); }

# A Python of the given minor version: $FIGURE_CHAT_PYTHON_3_9-style override, pyenv, or PATH.
find_python() {
  local minor=$1 var="FIGURE_CHAT_PYTHON_${1/./_}"
  if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
  local found
  found=$(ls -d /root/.pyenv/versions/"$minor".*/bin/python"$minor" 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$found" ] || found=$(command -v "python$minor" || true)
  [ -n "$found" ] || { echo "check-wheel: Python $minor not found (set $var); the package claims 3.9-3.13" >&2; exit 1; }
  echo "$found"
}

# Lowest and highest claimed Python: the wheel and its dependencies install, and the start-up check
# (Node, sharp, resvg, versions) passes. In the background, beside the main check below.
check_python() {
  local minor=$1 py=$2
  "$py" -m venv "$out/py$minor"
  # The pip that Python 3.9's venv brings (23.0) backtracks for many minutes over today's
  # JupyterLab dependencies; a current pip resolves them at once.
  quiet_pip "$out/py$minor/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
  quiet_pip "$out/py$minor/bin/python" -m pip install -q --disable-pip-version-check "$wheel"
  "$out/py$minor/bin/python" - <<'PY'
import asyncio, sys
import jupyterlab_figure_chat
from jupyterlab_figure_chat.extension import check_installation
if jupyterlab_figure_chat.__version__ == "dev":
    sys.exit("the installed package does not know its version")
report = asyncio.run(check_installation())
print(f"Python {sys.version.split()[0]}: {report.line}")
sys.exit(0 if report.ok else 1)
PY
}
pythons=()
for minor in 3.9 3.13; do
  py=$(find_python "$minor")
  check_python "$minor" "$py" >"$out/py$minor.log" 2>&1 &
  pythons+=("$!:$minor")
done

# The user's path: `pip install <wheel>` alone, then `jupyter lab`.
env="$out/venv"
python3 -m venv "$env"
quiet_pip "$env/bin/python" -m pip install -q --disable-pip-version-check "$wheel"
"$env/bin/jupyter" lab --version >/dev/null || { echo "check-wheel: the wheel does not bring \`jupyter lab\`" >&2; exit 1; }
# Read each listing whole before grepping: `grep -q` stopping early would make the lister die of
# SIGPIPE, which pipefail reports as a failure.
labextensions=$("$env/bin/jupyter" labextension list 2>&1)
grep -q "jupyterlab-figure-chat.*enabled.*OK" <<<"$labextensions" || {
  echo "check-wheel: the installed labextension is not enabled" >&2
  exit 1
}
serverextensions=$("$env/bin/jupyter" server extension list 2>&1)
grep -q "jupyterlab_figure_chat.*enabled" <<<"$serverextensions" || {
  echo "check-wheel: the server extension is not in \`jupyter server extension list\`" >&2
  echo "$serverextensions" >&2
  exit 1
}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
root="$out/root"
mkdir -p "$root"
( cd "$root" && exec env PATH="$env/bin:/usr/bin:/bin" "$env/bin/jupyter" lab \
    --port "$port" --ip 127.0.0.1 --IdentityProvider.token=wheel-check --no-browser --allow-root \
    >"$out/server.log" 2>&1 ) &
server=$!
"$env/bin/python" - "$port" "$out/server.log" <<'PY'
import json, sys, time, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}/"
headers = {"Authorization": "token wheel-check"}
deadline = time.time() + 60
while True:
    try:
        urllib.request.urlopen(urllib.request.Request(base + "api/status", headers=headers), timeout=5)
        break
    except Exception:
        if time.time() > deadline:
            sys.exit("check-wheel: the Jupyter server did not start")
        time.sleep(0.5)
page = urllib.request.urlopen(urllib.request.Request(base + "lab", headers=headers), timeout=30).read().decode()
if "jupyterlab-figure-chat" not in page:
    sys.exit("check-wheel: `jupyter lab` does not list the Figure Chat labextension in its page")
version = json.load(urllib.request.urlopen(urllib.request.Request(base + "figure-chat/version", headers=headers), timeout=60))
svg = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="#abc"/></svg>'
request = urllib.request.Request(
    base + "figure-chat/check-svg", data=json.dumps({"svg": svg}).encode(),
    headers={**headers, "Content-Type": "application/json"},
)
answer = json.load(urllib.request.urlopen(request, timeout=60))
if not answer.get("ok"):
    sys.exit(f"check-wheel: the installed figure server refused a valid figure: {answer}")
import base64, struct, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
raw = b"".join(b"\x00" + b"\x80\x40\x20" * 8 for _ in range(6))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 6, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
request = urllib.request.Request(
    base + "figure-chat/picture-info",
    data=json.dumps({"address": "cell:wheel/0", "data": base64.b64encode(png).decode()}).encode(),
    headers={**headers, "Content-Type": "application/json"},
)
info = json.load(urllib.request.urlopen(request, timeout=60))
if (info.get("width"), info.get("height")) != (8, 6):
    sys.exit(f"check-wheel: the installed figure server misread a picture: {info}")
# The server extension's start-up check logged its one line.
deadline = time.time() + 60
while "labextension and figure server match" not in open(sys.argv[2]).read():
    if time.time() > deadline:
        sys.exit("check-wheel: the server extension's start-up check did not pass:\n" + open(sys.argv[2]).read()[-2000:])
    time.sleep(0.5)
print(f"installed wheel ok: `jupyter lab` serves Figure Chat {version['version']}; its figure server answers (bundled Node, resvg, sharp)")
PY

for entry in "${pythons[@]}"; do
  if wait "${entry%%:*}"; then
    tail -n 1 "$out/py${entry#*:}.log"
  else
    cat "$out/py${entry#*:}.log" >&2
    echo "check-wheel: the wheel does not install or start on Python ${entry#*:}" >&2
    exit 1
  fi
done

#!/usr/bin/env bash
# Build the wheel a user installs and check it carries what `pip install` alone must give: the
# prebuilt labextension, the figure server with sharp's and resvg's native binaries, its fonts,
# the proxy entry point and the console script.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
.venv/bin/python -m pip wheel -q --no-deps --no-build-isolation -w "$out" . >/dev/null
wheel=$(ls "$out"/*.whl)
.venv/bin/python - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = {
    "labextension package.json": "share/jupyter/labextensions/jupyterlab-figure-chat/package.json",
    "install.json": "share/jupyter/labextensions/jupyterlab-figure-chat/install.json",
    "figure server": "jupyterlab_figure_chat/figure_server/figure-chat.cjs",
    "font": "jupyterlab_figure_chat/figure_server/fonts/DejaVuSans.ttf",
    "sharp": "jupyterlab_figure_chat/figure_server/node_modules/sharp/package.json",
}
missing = [what for what, name in need.items() if not any(n.endswith(name) for n in names)]
for what, marker in {"sharp binary": "sharp-linux-x64", "resvg binary": "resvg-js-linux-x64-gnu"}.items():
    if not any(marker in n and n.endswith(".node") for n in names):
        missing.append(what)
meta = next(n for n in names if n.endswith("entry_points.txt"))
entry = zipfile.ZipFile(sys.argv[1]).read(meta).decode()
for what in ("jupyter_serverproxy_servers", "figure-chat"):
    if what not in entry:
        missing.append(f"entry point {what}")
if missing:
    sys.exit(f"wheel {sys.argv[1]} lacks: {', '.join(missing)}")
print(f"wheel ok: {sys.argv[1].rsplit('/', 1)[-1]} ({len(names)} files)")
PY

# Install the wheel alone into a fresh environment, as a user would, and check that the Jupyter
# server starts the figure server (bundled Node, sharp and resvg) and serves the labextension.
env="$out/venv"
python3 -m venv "$env"
"$env/bin/python" -m pip install -q --disable-pip-version-check "$wheel" "jupyterlab>=4.5,<4.6" \
  2> >(grep -v "^WARNING: Location" >&2)
"$env/bin/jupyter" labextension list 2>&1 | grep -q "jupyterlab-figure-chat.*enabled.*OK" || {
  echo "check-wheel: the installed labextension is not enabled" >&2
  exit 1
}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
root="$out/root"
mkdir -p "$root"
( cd "$root" && exec env PATH="$env/bin:/usr/bin:/bin" "$env/bin/jupyter" server \
    --port "$port" --ip 127.0.0.1 --IdentityProvider.token=wheel-check --no-browser --allow-root \
    >"$out/server.log" 2>&1 ) &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$out"' EXIT
"$env/bin/python" - "$port" <<'PY'
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
print(f"installed wheel ok: figure server {version['version']} answers through Jupyter (bundled Node, resvg, sharp)")
PY

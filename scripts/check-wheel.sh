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

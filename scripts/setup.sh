#!/usr/bin/env bash
# Set up a development checkout: a Python virtual environment in .venv with JupyterLab and this
# extension (editable, with its `test` and `docs` extras), the npm packages, and a build of the
# labextension and the figure server.
# Idempotent; needs Python 3.11 and Node 20 (and nothing else) on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
export PATH="$PWD/.venv/bin:$PATH"
# JupyterLab 4.5 with the labextensions built for it: jupyter-server-proxy 4.5+ and
# jupyterlab_widgets 3.0.17+ ship ones built against JupyterLab 4.6, which make 4.5 print
# "Unsatisfied version" warnings (the Galata test under the base URL fails on them). A user's
# `pip install` gets the newest of all, which match.
python -m pip install -q --disable-pip-version-check 2> >(grep -v "^WARNING: Location" >&2) \
  "jupyterlab>=4.5.11,<4.6" "jupyter-server-proxy>=4.2,<4.5" "ipywidgets>=8,<8.1.9" "jupyterlab_widgets>=3.0.15,<3.0.17" "notebook>=7.5,<7.6" "hatchling>=1.5" "hatch-nodejs-version>=0.3.2" "hatch-jupyter-builder>=0.5" editables build

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
# The build's own output (webpack warnings about third-party source maps) goes to a log, shown
# only when the build fails.
npm run build > build.log 2>&1 || { tail -n 60 build.log >&2; echo "setup: build failed (build.log)" >&2; exit 1; }

python -m pip install -q --disable-pip-version-check --no-build-isolation -e ".[test,docs]" \
  2> >(grep -v "^WARNING: Location" >&2)
jupyter labextension develop --overwrite . >/dev/null
jupyter labextension list 2>&1 | grep -q "jupyterlab-figure-chat.*enabled.*OK" || {
  echo "setup: the labextension is not enabled" >&2
  jupyter labextension list >&2
  exit 1
}
echo "setup: ready (.venv, node_modules, labextension, figure server)"

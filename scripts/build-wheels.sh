#!/usr/bin/env bash
# Build the distributions into dist/: the sdist, then this machine's wheel from that sdist with
# build isolation (`python -m build`: npm install and the production build run inside, so nothing
# from this checkout's development build gets in), then one wheel per other platform that sharp
# and resvg publish binaries for (scripts/platform_wheels.py, scripts/wheel-platforms.json).
set -euo pipefail
cd "$(dirname "$0")/.."
python=.venv/bin/python
[ -x "$python" ] || python=python3
"$python" -m build --version >/dev/null 2>&1 || "$python" -m pip install -q build

rm -rf dist/*.whl dist/*.tar.gz
mkdir -p build
mkdir -p dist
"$python" -m build --outdir dist . >build/build-wheels.log 2>&1 || {
  tail -n 60 build/build-wheels.log >&2
  echo "build-wheels: python -m build failed (build/build-wheels.log)" >&2
  exit 1
}
host=$(ls dist/*.whl)
"$python" scripts/platform_wheels.py "$host" dist
ls -1 dist/*.tar.gz dist/*.whl

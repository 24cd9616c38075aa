#!/usr/bin/env bash
# Set up, then run every test: lint and type checks, jest (tools, chat, figure server with real
# sharp and resvg), pytest (the Jupyter server starting the figure server), the wheel's contents,
# and Galata (real JupyterLab in Debian's Chromium with a scripted model server).
set -euo pipefail
cd "$(dirname "$0")/.."

chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "test: installing Debian's chromium"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
  else
    echo "test: Chromium is missing; install Debian's chromium (sudo apt-get install chromium) or set CHROMIUM_PATH" >&2
    exit 1
  fi
fi

bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"

echo "== lint"
npm run --silent lint:check

echo "== llama-server (for the real llama.cpp tests; built once per machine, cached outside the clone)"
bash scripts/build-llama-server.sh

echo "== jest"
npx jest --ci --forceExit

echo "== pytest"
python -m pytest -q

echo "== wheel"
bash scripts/check-wheel.sh

echo "== galata"
(cd ui-tests && { [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund; } && CHROMIUM_PATH="$chromium" npx playwright test)

# Each stage above stops the script on failure (set -e), so reaching here means all five passed.
echo "stages: 5 passed, 0 failed"

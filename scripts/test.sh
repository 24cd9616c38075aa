#!/usr/bin/env bash
# Set up, then run every test: lint and type checks, jest (tools, chat, figure server with real
# sharp and resvg), pytest (the Jupyter server starting the figure server), the wheels (built from
# the sdist, one per platform, checked by their binaries' headers, and installed alone into fresh
# venvs), and Galata (real JupyterLab in Debian's Chromium with a scripted model server), then the
# core path under a JupyterHub base URL, in Notebook 7, and two clients under jupyter-collaboration.
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
# The ui-tests are TypeScript too, typed against their own packages (Galata, Playwright): those are
# installed here rather than at the Galata stage, so that a type error in a spec stops the run in
# seconds instead of after the wheels.
(cd ui-tests && { [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund; })
npx tsc --noEmit -p ui-tests

echo "== llama-server (for the real llama.cpp tests; built once per machine, cached outside the clone)"
bash scripts/build-llama-server.sh

echo "== jest"
npx jest --ci --forceExit

echo "== pytest"
python -m pytest -q

# Each stage prints how long it took, so the CI budget stays visible.
timed() {
  local start=$SECONDS
  "$@"
  echo "($(( SECONDS - start )) s)"
}

echo "== wheels"
timed bash scripts/build-wheels.sh
timed bash scripts/check-wheel.sh

echo "== galata"
(cd ui-tests && export CHROMIUM_PATH="$chromium" && timed npx playwright test)

echo "== galata under the base URL /user/alice/"
(cd ui-tests && export CHROMIUM_PATH="$chromium" && timed npx playwright test --config playwright.baseurl.config.js)

echo "== Notebook 7"
(cd ui-tests && export CHROMIUM_PATH="$chromium" && timed npx playwright test --config playwright.notebook.config.js)

echo "== real-time collaboration (jupyter-collaboration, in build/rtc-venv)"
timed bash scripts/rtc-venv.sh
(cd ui-tests && export CHROMIUM_PATH="$chromium" && timed npx playwright test --config playwright.rtc.config.js)

# Each stage above stops the script on failure (set -e), so reaching here means all passed.
echo "stages: 8 passed, 0 failed"

#!/usr/bin/env bash
# Set up, then run every test: lint and type checks, jest (tools, chat, figure server with real
# sharp and resvg), pytest (the Jupyter server starting the figure server), the wheels (built from
# the sdist, one per platform, checked by their binaries' headers, and installed alone into fresh
# venvs), the docs site (sphinx-build -W), and Galata (real JupyterLab in Debian's Chromium with a
# scripted model server), then the core path under a JupyterHub base URL, in Notebook 7, and two
# clients under jupyter-collaboration.
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

# Each stage prints how long it took, so the CI budget stays visible.
timed() {
  local start=$SECONDS
  "$@"
  echo "($(( SECONDS - start )) s)"
}

# The installs that mostly wait on the network run beside the stages that use the CPU; the stage
# that needs one waits for it and shows its log (only its log when it fails).
jobs_dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$jobs_dir"' EXIT
beside() {
  local name=$1
  shift
  "$@" >"$jobs_dir/$name.log" 2>&1 &
  echo $! >"$jobs_dir/$name.pid"
}
await() {
  local name=$1
  if wait "$(cat "$jobs_dir/$name.pid")"; then
    cat "$jobs_dir/$name.log"
  else
    cat "$jobs_dir/$name.log" >&2
    echo "test: $name failed" >&2
    exit 1
  fi
}
# The ui-tests' own packages (Galata, Playwright), needed first by the lint stage's type check.
ui_tests_packages() {
  cd ui-tests
  [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund
}
beside ui-tests-packages ui_tests_packages

bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
# jupyter-collaboration's venv links this checkout's build, so it starts once setup has built it.
beside rtc-venv bash scripts/rtc-venv.sh
# The wheels (an npm install and the production build inside the sdist, the other platforms' npm
# installs, then pip installs into fresh venvs) mostly wait on the registry: they are built and
# checked beside lint, jest and pytest.
wheels() {
  timed bash scripts/build-wheels.sh
  timed bash scripts/check-wheel.sh
}
beside wheels wheels

echo "== lint"
npm run --silent lint:check
# The ui-tests are TypeScript too, typed against their own packages (Galata, Playwright): they are
# checked here rather than at the Galata stage, so that a type error in a spec stops the run in
# seconds instead of after the wheels.
await ui-tests-packages
npx tsc --noEmit -p ui-tests

echo "== llama-server (for the real llama.cpp tests; built once per machine, cached outside the clone)"
bash scripts/build-llama-server.sh

echo "== jest"
npx jest --ci --forceExit

echo "== pytest"
python -m pytest -q

# The docs site (docs/): every warning is an error, so a page outside the tables of contents, a
# broken cross-reference, a docstring the API reference cannot read or a tool spec the tools
# reference cannot render fails here. setup.sh installed the `docs` extra.
echo "== docs"
timed sphinx-build -W --keep-going -q -b html docs docs/_build/html

echo "== wheels (built and checked beside the stages above)"
timed await wheels

# The main suite runs in two shards at once, each with its own JupyterLab, model server, ports
# (the main stage's and the ones after the small configs') and server and results folders: one
# Galata run keeps about one core busy (a browser step, then a wait on the server), so two fill
# the machine's two.
galata_shard() {
  local index=$1 offset=$2
  cd ui-tests
  # One retry (playwright.config.js), as on a CI service: a 2-core machine running two shards
  # occasionally starves a browser step; a test that fails twice fails the run.
  export CI="${CI:-1}"
  export CHROMIUM_PATH="$chromium"
  export FIGURE_CHAT_TEST_PORT=$((${FIGURE_CHAT_TEST_PORT:-8888} + offset))
  export FIGURE_CHAT_MODEL_PORT=$((${FIGURE_CHAT_MODEL_PORT:-8765} + offset))
  export FIGURE_CHAT_TEST_RUNTIME=".jupyter-runtime/shard$index"
  timed npx playwright test --shard="$index/2" --output "test-results/shard$index"
}
echo "== galata (two shards at once)"
start=$SECONDS
beside galata-1 galata_shard 1 0
beside galata-2 galata_shard 2 4
echo "== galata, shard 1 of 2"
await galata-1
echo "== galata, shard 2 of 2"
await galata-2
echo "(the two: $((SECONDS - start)) s)"

# The three small configs each start their own JupyterLab and Chromium for one or two tests, and
# mostly wait on those starts: they run at once, each on its own ports (the next ones after the
# main stage's) and with its own server and results folders (set in its config).
small_config() {
  local config=$1 offset=$2
  cd ui-tests
  export CHROMIUM_PATH="$chromium"
  export FIGURE_CHAT_TEST_PORT=$((${FIGURE_CHAT_TEST_PORT:-8888} + offset))
  export FIGURE_CHAT_MODEL_PORT=$((${FIGURE_CHAT_MODEL_PORT:-8765} + offset))
  timed npx playwright test --config "playwright.$config.config.js"
}
echo "== galata under the base URL /user/alice/, in Notebook 7 and with real-time collaboration (at once)"
timed await rtc-venv
start=$SECONDS
beside galata-baseurl small_config baseurl 1
beside galata-notebook small_config notebook 2
beside galata-rtc small_config rtc 3
echo "== galata under the base URL /user/alice/"
await galata-baseurl
echo "== Notebook 7"
await galata-notebook
echo "== real-time collaboration (jupyter-collaboration, in build/rtc-venv)"
await galata-rtc
echo "(the three: $((SECONDS - start)) s)"

# Each stage above stops the script on failure (set -e), so reaching here means all passed.
echo "stages: 9 passed, 0 failed"

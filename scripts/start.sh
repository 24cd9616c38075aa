#!/usr/bin/env bash
# Set up, then start JupyterLab with Figure Chat on examples/ (its notebooks hold saved
# conversations, so replay shows with no model running). Extra arguments go to `jupyter lab`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
args=(--ServerApp.root_dir="$PWD/examples")
[ "$(id -u)" = 0 ] && args+=(--allow-root)
exec .venv/bin/jupyter lab "${args[@]}" "$@"

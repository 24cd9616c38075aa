#!/usr/bin/env bash
# Build llama.cpp's `llama-server` from the llama-cpp-python sdist on PyPI (its vendor/llama.cpp),
# for the tests that talk to a real llama.cpp server (tests/test_llama_server.py).
#
# The binary is cached outside the clone, keyed by version, so a machine pays for the build
# (about 200 s on 2 idle cores) once, with llama.cpp's own Qwen2.5 chat template beside it:
#   ${FIGURE_CHAT_LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/figure-chat/llama-server}/<version>/
#     llama-server, qwen2.5.jinja
# Without a C++ compiler or cmake it says so and exits 0: the test then skips with that reason.
# Nothing is downloaded besides the sdist from the package registry (UI, curl and OpenSSL off).
set -euo pipefail

version="${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
cache="${FIGURE_CHAT_LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/figure-chat/llama-server}"
target="$cache/$version/llama-server"
template="$cache/$version/qwen2.5.jinja"

if [ -x "$target" ] && [ -f "$template" ]; then
  echo "llama-server $version: cached at $target"
  exit 0
fi
for tool in cmake c++ cc; do
  if ! command -v "$tool" >/dev/null; then
    mkdir -p "$cache"
    echo "no $tool on this machine" >"$cache/skip-reason"
    echo "llama-server: not built ($tool missing); the real-llama.cpp test will skip"
    exit 0
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/figure-chat-llama.XXXXXX")"
trap 'rm -rf "$work"' EXIT
python="${PYTHON:-python3}"

# `pip download` of an sdist prepares its metadata, which needs the build backend; a throwaway
# venv holds it, so the project's own environment is untouched.
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q scikit-build-core
"$work/venv/bin/pip" download -q "llama-cpp-python==$version" --no-binary :all: --no-deps \
  --no-build-isolation -d "$work/dl"
tar -xzf "$work"/dl/llama_cpp_python-"$version".tar.gz -C "$work"
src="$work/llama_cpp_python-$version/vendor/llama.cpp"

jobs="${LLAMA_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
# A cache from before the template was kept needs only the template.
if [ ! -x "$target" ]; then
  nice -n 19 cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
    -DGGML_NATIVE=OFF -DGGML_OPENMP=OFF -DBUILD_SHARED_LIBS=OFF >"$work/configure.log" 2>&1 ||
    { tail -30 "$work/configure.log" >&2; exit 1; }
  nice -n 19 cmake --build "$work/build" --target llama-server -j "$jobs" >"$work/build.log" 2>&1 ||
    { tail -40 "$work/build.log" >&2; exit 1; }
fi

mkdir -p "$cache/$version"
cp "$src/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja" "$template"
if [ -x "$target" ]; then
  echo "llama-server $version: cached at $target (template added)"
  exit 0
fi
cp "$work/build/bin/llama-server" "$target.partial"
mv "$target.partial" "$target"
rm -f "$cache/skip-reason"
echo "llama-server $version: built at $target"

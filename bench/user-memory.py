"""What one JupyterHub user costs in Figure Chat processes (SPEC 13, issue 33.1).

A real Jupyter server (with jupyter-server-proxy) on loopback, as a single-user server runs, and
three real IPython kernels. Measured:

1. the Jupyter server started, nothing used: Figure Chat processes (budget: none);
2. the figure server used once (picture-info and a map of a 4000×3000 JPEG through
   ``figure-chat/``), and each kernel ran ``Vision(...)`` and ``mark``: processes and RSS just
   after the last render, and 65 s later (budget: ≤ 150 MB in all);
3. the next view after that quiet period, in a kernel and through the figure server (budget:
   ≤ 1.5 s each).

A "Figure Chat process" is a Node process running the bundled ``figure-chat.cjs`` (the figure
server, or a kernel's figure program) started by this bench's server or kernels.

    .venv/bin/python bench/user-memory.py [--quiet-s 65] [--port 9530]

Compare with the figure programs kept for good (the behaviour before issue 33):
``FIGURE_CHAT_KERNEL_IDLE_S=0 .venv/bin/python bench/user-memory.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

BUDGET_MB = 150
NEXT_VIEW_BUDGET_S = 1.5


def figure_chat_processes() -> dict[int, tuple[str, float]]:
    """Pid → (role, RSS in MB) of every running bundled figure-chat Node process of this bench."""
    found = {}
    marker = f"FIGURE_CHAT_BENCH_RUN={RUN}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            if not any(part.endswith(b"figure-chat.cjs") for part in cmdline):
                continue
            if marker not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            status = (entry / "status").read_text()
        except OSError:
            continue
        rss_kb = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
        role = (
            "figure server"
            if b"serve" in cmdline
            else "start-up check"
            if b"--version" in cmdline
            else "kernel figure program"
        )
        found[int(entry.name)] = (role, rss_kb / 1024)
    return found


def report(label: str) -> float:
    processes = figure_chat_processes()
    total = sum(rss for _, rss in processes.values())
    print(f"\n{label}: {len(processes)} Figure Chat process(es), {total:.0f} MB RSS in all")
    for pid, (role, rss) in sorted(processes.items()):
        print(f"  {pid:>7}  {role:<24} {rss:6.0f} MB")
    return total


def fetch(url: str, token: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        url,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
        method="GET" if body is None else "POST",
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def make_picture(path: Path) -> None:
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(33)
    pixels = rng.integers(0, 255, (3000, 4000, 3), dtype=np.uint8)
    Image.fromarray(pixels).save(path, quality=90)


KERNEL_SETUP = """
import time
from jupyterlab_figure_chat import Vision
v = Vision({picture!r})
v.mark(["100,100", "2000,1500,2600,2100"], captions=["a", "b"])
"""
KERNEL_NEXT_VIEW = """
started = time.perf_counter()
v.show("2000,1500")
print(round(time.perf_counter() - started, 3))
"""


def run_in_kernel(client, code: str) -> str:  # noqa: ANN001 - a jupyter_client BlockingKernelClient
    client.execute(code)
    output = []
    while True:
        message = client.get_iopub_msg(timeout=120)
        kind, content = message["msg_type"], message["content"]
        if kind == "stream":
            output.append(content["text"])
        elif kind == "error":
            raise RuntimeError("\n".join(content["traceback"]))
        elif kind == "status" and content["execution_state"] == "idle":
            return "".join(output)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quiet-s", type=float, default=65.0)
    parser.add_argument("--port", type=int, default=9530)
    args = parser.parse_args()

    from jupyter_client.manager import start_new_kernel

    folder = Path(tempfile.mkdtemp(prefix="figure-chat-user-memory-"))
    picture = folder / "picture.jpg"
    make_picture(picture)
    token = secrets.token_hex(16)
    env = {**os.environ, "FIGURE_CHAT_BENCH_RUN": RUN}
    os.environ["FIGURE_CHAT_BENCH_RUN"] = RUN  # the kernels inherit it too
    idle = os.environ.get("FIGURE_CHAT_KERNEL_IDLE_S", "default (30)")
    print(f"FIGURE_CHAT_KERNEL_IDLE_S={idle}; quiet period {args.quiet_s:.0f} s; budget {BUDGET_MB} MB")
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("jupyter")),
            "server",
            f"--port={args.port}",
            "--ip=127.0.0.1",
            "--no-browser",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={folder}",
            "--ServerApp.allow_root=True",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{args.port}"
    kernels = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                fetch(f"{base}/api/status", token)
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "Jupyter did not start"
                time.sleep(0.2)
        # The server extension's start-up check runs `figure-chat.cjs --version` once; let it end.
        while any(role == "start-up check" for role, _ in figure_chat_processes().values()):
            assert time.monotonic() < deadline + 60, "the start-up check did not end"
            time.sleep(0.2)
        time.sleep(2)
        never_used = report("1. Jupyter server started, Figure Chat never used")

        fetch(f"{base}/figure-chat/picture-info", token, {"address": "picture.jpg"})
        record = {"image": "picture.jpg", "marks": [], "lastId": 0}
        fetch(f"{base}/figure-chat/render", token, {"address": "picture.jpg", "views": [{"kind": "map"}], "record": record})
        for _ in range(3):
            manager, client = start_new_kernel(kernel_name="python3", cwd=str(folder))
            kernels.append((manager, client))
            run_in_kernel(client, KERNEL_SETUP.format(picture=str(picture)))
        after = report("2. just after the last render (figure server used, three kernels ran Vision)")
        time.sleep(args.quiet_s)
        quiet = report(f"3. {args.quiet_s:.0f} s after the last render")

        started = time.perf_counter()
        fetch(f"{base}/figure-chat/render", token, {"address": "picture.jpg", "views": [{"kind": "map"}], "record": record})
        server_view = time.perf_counter() - started
        kernel_view = float(run_in_kernel(kernels[0][1], KERNEL_NEXT_VIEW).strip())
        print(f"\n4. next view after the quiet period: kernel close-up {kernel_view:.2f} s, "
              f"figure server map {server_view:.2f} s (budget {NEXT_VIEW_BUDGET_S} s each)")
        print("\nagainst the budget:")
        print(f"  never used: {never_used:.0f} MB ({'ok' if never_used == 0 else 'OVER: budget is no process'})")
        print(f"  after quiet: {quiet:.0f} MB of {BUDGET_MB} MB ({'ok' if quiet <= BUDGET_MB else 'OVER'});"
              f" just after the renders {after:.0f} MB")
        slowest = max(kernel_view, server_view)
        print(f"  next view: {slowest:.2f} s of {NEXT_VIEW_BUDGET_S} s ({'ok' if slowest <= NEXT_VIEW_BUDGET_S else 'OVER'})")
    finally:
        for manager, client in kernels:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        for pid in figure_chat_processes():
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(folder, ignore_errors=True)
    return 0


RUN = secrets.token_hex(4)

if __name__ == "__main__":
    sys.exit(main())

"""The ``figure-chat`` console script as a process manager (or a Hub's spawner) runs it: stopped
with SIGTERM or SIGINT, it leaves no Node process behind and no one listening on its socket."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="signals and Unix sockets")

# Node's start-up on a loaded 2-core machine; the figure server is listening well before this.
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0


def _console_script() -> str:
    beside = Path(sys.executable).with_name("figure-chat")
    return str(beside) if beside.exists() else "figure-chat"


def _answers(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(2)
        try:
            client.connect(str(path))
        except OSError:
            return False
        return True


def _processes_naming(text: str) -> list[int]:
    """Pids whose command line mentions ``text`` (the test's own socket path)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if text.encode() in cmdline:
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_console_script_leaves_no_child(tmp_path: Path, signum: int) -> None:
    sock = tmp_path / "figure.sock"
    process = subprocess.Popen(
        [_console_script(), "serve", "--socket", str(sock), "--root", str(tmp_path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not (sock.exists() and _answers(sock)):
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            assert time.monotonic() < deadline, "the figure server never listened"
            time.sleep(0.05)
        process.send_signal(signum)
        process.wait(timeout=STOP_TIMEOUT_S)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while _processes_naming(str(sock)) or _answers(sock):
            assert time.monotonic() < deadline, (
                f"still running after the console script stopped: {_processes_naming(str(sock))}"
            )
            time.sleep(0.05)
        # Stopped, not finished: a supervisor must never read it as a clean exit.
        assert process.returncode != 0
    finally:
        for pid in _processes_naming(str(sock)):
            os.kill(pid, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
            process.wait()

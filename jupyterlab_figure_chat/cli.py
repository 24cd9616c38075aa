"""The ``figure-chat`` console script: runs the bundled figure-chat program with the bundled Node.

A process manager (systemd, supervisord, a container runtime) stops a program by signalling the
process it started. If that process were a Python parent waiting on Node, the signal would end
Python and leave Node running, still holding the figure server's socket. So on POSIX the script
becomes Node (``execve``: same process, same pid); where there is no ``exec`` (Windows) it forwards
SIGINT/SIGTERM to its child and waits for it, so no child outlives it either way.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from .runtime import FigureServerMissing, node_executable, server_environment, server_script


def _forward_and_wait(command: list[str], env: dict[str, str]) -> int:
    child = subprocess.Popen(command, env=env)

    def forward(signum: int, _frame: object) -> None:
        if child.poll() is None:
            child.send_signal(signum)

    for name in ("SIGINT", "SIGTERM", "SIGBREAK"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), forward)
    while True:
        try:
            return child.wait()
        except KeyboardInterrupt:
            # Windows delivers Ctrl+C to the whole console group; Node got it too: wait for it.
            continue


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        command = [node_executable(), server_script(), *args]
    except FigureServerMissing as error:
        print(f"figure-chat: {error}", file=sys.stderr)
        return 2
    env = {**os.environ, **server_environment()}
    if os.name == "posix" and argv is None:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(command[0], command, env)
    return _forward_and_wait(command, env)


if __name__ == "__main__":
    sys.exit(main())

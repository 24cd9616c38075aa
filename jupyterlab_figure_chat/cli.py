"""The ``figure-chat`` console script: runs the bundled figure-chat program with the bundled Node."""

from __future__ import annotations

import os
import subprocess
import sys

from .runtime import FigureServerMissing, node_executable, server_environment, server_script


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        command = [node_executable(), server_script(), *args]
    except FigureServerMissing as error:
        print(f"figure-chat: {error}", file=sys.stderr)
        return 2
    env = {**os.environ, **server_environment()}
    return subprocess.call(command, env=env)


if __name__ == "__main__":
    sys.exit(main())

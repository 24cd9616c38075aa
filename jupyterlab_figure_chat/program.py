"""The bundled Node figure program, run as ``figure-chat kernel`` beside the kernel.

One process per kernel, started on first use and kept: sharp and resvg load once, and pictures
sent once are kept by their sha-256. Requests and answers are frames (a JSON header plus raw
bytes; see ``src/server/kernel/frames.ts``), so a 20-megapixel array crosses the pipe as its
bytes, never as base64.
"""

from __future__ import annotations

import atexit
import json
import os
import struct
import subprocess
import tempfile
import threading
from collections.abc import Callable
from typing import Any

from .errors import FigureProgramError, error_from_answer
from .runtime import FigureServerMissing, node_executable, server_environment, server_script

_HEADER = struct.Struct("<II")


class FigureProgram:
    """A running ``figure-chat kernel`` process; requests are answered in order, one at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._next_id = 0
        self._stderr: Any = None

    def _start(self) -> subprocess.Popen[bytes]:
        try:
            command = [node_executable(), server_script(), "kernel"]
        except FigureServerMissing as error:
            raise FigureProgramError(str(error), "missing") from error
        env = {**os.environ, **server_environment()}
        # stderr goes to a file, not a pipe: a pipe nobody reads could fill and stall the program.
        self._stderr = tempfile.TemporaryFile()
        return subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
        )

    def request(self, header: dict[str, Any], payload: bytes | memoryview = b"") -> tuple[dict[str, Any], bytes]:
        """Send one request; returns the answer's JSON and bytes, or raises its FigureChatError."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._process = self._start()
            process = self._process
            self._next_id += 1
            message = json.dumps({**header, "id": self._next_id}).encode("utf-8")
            try:
                assert process.stdin is not None and process.stdout is not None
                process.stdin.write(_HEADER.pack(len(message), len(payload)))
                process.stdin.write(message)
                if len(payload):
                    process.stdin.write(payload)
                process.stdin.flush()
                head = _read_exactly(process.stdout, _HEADER.size)
                json_length, binary_length = _HEADER.unpack(head)
                answer = json.loads(_read_exactly(process.stdout, json_length))
                data = _read_exactly(process.stdout, binary_length)
            except (OSError, EOFError, ValueError) as error:
                self._process = None
                detail = _stderr_tail(process, self._stderr)
                raise FigureProgramError(
                    f"the figure program stopped ({error}){': ' + detail if detail else ''}; "
                    "the next call starts it again",
                    "crashed",
                ) from error
        if not answer.get("ok"):
            raise error_from_answer(answer.get("error"))
        return answer, data

    def close(self) -> None:
        with self._lock:
            process, self._process = self._process, None
        if process is not None and process.poll() is None:
            assert process.stdin is not None
            process.stdin.close()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()


def _read_exactly(stream: Any, length: int) -> bytes:
    chunks = []
    remaining = length
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            raise EOFError("the figure program closed its output")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _stderr_tail(process: subprocess.Popen[bytes], stderr: Any) -> str:
    if process.poll() is None:
        process.kill()
    try:
        process.wait(timeout=5)
        stderr.seek(0)
        return stderr.read()[-2000:].decode("utf-8", "replace").strip()
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return ""


def _started_on_first_use() -> Callable[[], FigureProgram]:
    """A getter for one figure program, started on its first request and closed at exit."""
    program: FigureProgram | None = None
    lock = threading.Lock()

    def get() -> FigureProgram:
        nonlocal program
        with lock:
            if program is None:
                program = FigureProgram()
                atexit.register(program.close)
            return program

    return get


# The process-wide figure program.
figure_program = _started_on_first_use()

# A second figure program for re-rendering saved outputs off the kernel's thread: requests to one
# program are answered one at a time, so sharing it would hold a click's check back.
background_figure_program = _started_on_first_use()

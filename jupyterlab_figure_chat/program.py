"""The bundled Node figure program, run as ``figure-chat kernel`` beside the kernel.

One process per kernel, started on first use: sharp and resvg load once, and pictures sent once
are kept by their sha-256. Requests and answers are frames (a JSON header plus raw bytes; see
``src/server/kernel/frames.ts``), so a 20-megapixel array crosses the pipe as its bytes, never as
base64.

A quiet program is closed (``FIGURE_CHAT_KERNEL_IDLE_S``, 30 s by default; 0 keeps it): at
JupyterHub scale each kernel's ~150 MB program, kept for a notebook left open, was most of what a
user cost (issue 33). The next request starts it again and sends its picture once more (the
``need-picture`` answer), well within a view's time budget. The close happens under the request
lock, so it never races a request.
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

#: Seconds without a request after which a figure program is closed.
DEFAULT_IDLE_S = 30.0


def idle_seconds() -> float:
    """``FIGURE_CHAT_KERNEL_IDLE_S``, else the default; 0 (or less) keeps the program running."""
    try:
        return float(os.environ.get("FIGURE_CHAT_KERNEL_IDLE_S", DEFAULT_IDLE_S))
    except ValueError:
        return DEFAULT_IDLE_S


class FigureProgram:
    """A running ``figure-chat kernel`` process; requests are answered in order, one at a time."""

    def __init__(self, idle_s: float | None = None) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._next_id = 0
        self._stderr: Any = None
        self._idle_s = idle_seconds() if idle_s is None else idle_s
        self._idle_timer: threading.Timer | None = None
        # Bumped by every request, so a timer armed before it never closes the program after it.
        self._generation = 0

    @property
    def running(self) -> bool:
        """Whether a figure program process is running now."""
        process = self._process
        return process is not None and process.poll() is None

    def _arm_idle_timer(self) -> None:
        """(Called with the lock held.) Close the program once it has been quiet for idle_s."""
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        if self._idle_s <= 0:
            return
        generation = self._generation
        timer = threading.Timer(self._idle_s, self._close_if_idle, args=(generation,))
        timer.daemon = True
        timer.start()
        self._idle_timer = timer

    def _close_if_idle(self, generation: int) -> None:
        with self._lock:
            if generation != self._generation:
                return
            process, self._process = self._process, None
            self._idle_timer = None
        _stop(process)

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
            self._generation += 1
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
            finally:
                self._arm_idle_timer()
        if not answer.get("ok"):
            raise error_from_answer(answer.get("error"))
        return answer, data

    def close(self) -> None:
        with self._lock:
            process, self._process = self._process, None
            if self._idle_timer is not None:
                self._idle_timer.cancel()
                self._idle_timer = None
        _stop(process)


def _stop(process: subprocess.Popen[bytes] | None) -> None:
    """End a figure program: closing its input ends it (it serves until stdin ends)."""
    if process is None or process.poll() is not None:
        return
    assert process.stdin is not None
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


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

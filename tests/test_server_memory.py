"""What Figure Chat's processes hold: the figure server's allocator environment, which lets its
memory come back after a burst, and a kernel's figure program, closed when quiet (issue 33.1)."""

import threading
import time

import numpy as np

from jupyterlab_figure_chat import Vision, vision
from jupyterlab_figure_chat import program as program_module
from jupyterlab_figure_chat.program import FigureProgram, idle_seconds
from jupyterlab_figure_chat.proxy import setup_figure_server


def test_figure_server_runs_with_two_malloc_arenas(monkeypatch):
    monkeypatch.delenv("NODE_OPTIONS", raising=False)
    environment = setup_figure_server()["environment"]()
    assert environment["MALLOC_ARENA_MAX"] == "2"
    assert environment["FIGURE_CHAT_FONT_DIR"].endswith("fonts")
    assert environment["NODE_OPTIONS"] == "--expose-gc"


def test_figure_server_maps_big_buffers_and_may_collect_when_idle(monkeypatch):
    monkeypatch.setenv("NODE_OPTIONS", "--max-old-space-size=512")
    environment = setup_figure_server()["environment"]()
    assert environment["MALLOC_MMAP_THRESHOLD_"] == "131072"
    # The user's own Node options are kept.
    assert environment["NODE_OPTIONS"] == "--max-old-space-size=512 --expose-gc"


# ----------------------------------------------------------------------------------------------
# Issue 33.1: a kernel's figure program does not stay for a notebook left open.





def _wait_until(condition, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_quiet_figure_program_is_closed_and_the_next_view_starts_it_again(monkeypatch):
    quick = FigureProgram(idle_s=1.0)
    monkeypatch.setattr(vision, "figure_program", lambda: quick)
    picture = np.zeros((300, 400, 3), dtype=np.uint8)
    v = Vision(picture)
    v.mark(["100,100"], captions=["one"])
    assert quick.running
    pid = quick._process.pid
    _wait_until(lambda: not quick.running)
    _wait_until(lambda: not _alive(pid))
    # The program forgot the picture with its process: the view sends it once more and renders.
    started = time.monotonic()
    shown = v.show()
    assert time.monotonic() - started < 5.0
    assert "image/png" in shown._repr_mimebundle_()[0]
    assert quick.running
    quick.close()


def test_a_busy_program_is_not_closed_under_a_request():
    busy = FigureProgram(idle_s=0.2)
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="5" height="5"/></svg>'
    errors = []

    def ask() -> None:
        for _ in range(15):
            try:
                busy.request({"op": "figure", "svg": svg, "alt": "a box"})
            except Exception as error:  # noqa: BLE001 - collected and asserted below
                errors.append(error)
            time.sleep(0.15)

    thread = threading.Thread(target=ask)
    thread.start()
    thread.join(60)
    assert not errors, errors
    busy.close()
    assert not busy.running


def test_idle_seconds_from_the_environment(monkeypatch):
    monkeypatch.delenv("FIGURE_CHAT_KERNEL_IDLE_S", raising=False)
    assert idle_seconds() == program_module.DEFAULT_IDLE_S
    monkeypatch.setenv("FIGURE_CHAT_KERNEL_IDLE_S", "0")
    assert idle_seconds() == 0
    kept = FigureProgram()
    kept._arm_idle_timer()
    assert kept._idle_timer is None
    monkeypatch.setenv("FIGURE_CHAT_KERNEL_IDLE_S", "soon")
    assert idle_seconds() == program_module.DEFAULT_IDLE_S


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except OSError:
        return False


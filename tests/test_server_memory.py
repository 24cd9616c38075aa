"""The figure server's allocator environment, which lets its memory come back after a burst."""

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

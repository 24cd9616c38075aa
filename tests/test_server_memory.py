"""The figure server's allocator environment, which lets its memory come back after a burst."""

from jupyterlab_figure_chat.proxy import setup_figure_server


def test_figure_server_runs_with_two_malloc_arenas():
    environment = setup_figure_server()["environment"]()
    assert environment["MALLOC_ARENA_MAX"] == "2"
    assert environment["FIGURE_CHAT_FONT_DIR"].endswith("fonts")

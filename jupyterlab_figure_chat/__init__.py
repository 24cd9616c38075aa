"""Figure Chat: a model chat beside each notebook whose figures are real, safe, and saved in the .ipynb."""

try:
    from ._version import __version__
except ImportError:  # a wheel built from the sdist does not carry the generated _version.py
    try:
        from importlib.metadata import version as _installed_version

        __version__ = _installed_version("jupyterlab-figure-chat")
    except Exception:  # noqa: BLE001 - a source tree that was never built or installed
        __version__ = "dev"


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "jupyterlab-figure-chat"}]


def _jupyter_server_extension_points():
    # The server extension only checks the installation at start-up (extension.py); the figure
    # server itself is started by jupyter-server-proxy (proxy.py).
    return [{"module": "jupyterlab_figure_chat.extension"}]

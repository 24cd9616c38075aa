"""The administrator's endpoint is the default (issue 33.2): the Jupyter server publishes it, and
where it came from, in the page config for the Settings editor (never the key), and passes
``c.FigureChat.endpoint`` on to the figure server with its source."""

from __future__ import annotations

import json

import pytest

from jupyterlab_figure_chat import proxy
from jupyterlab_figure_chat.proxy import server_endpoint

KEY = "sk-admin-secret-0123456789abcdef"


def test_the_variable_wins_over_the_configuration():
    env = {"FIGURE_CHAT_ENDPOINT": "http://vllm.cluster:8000/v1/"}
    assert server_endpoint(env, configured="http://other/v1") == {
        "endpoint": "http://vllm.cluster:8000/v1",
        "source": "FIGURE_CHAT_ENDPOINT",
        "hasKey": False,
    }
    assert server_endpoint({}, configured="http://ollama:11434/v1")["source"] == "c.FigureChat.endpoint"


def test_openai_key_alone_means_openai_as_the_figure_server_reads_it():
    assert server_endpoint({"OPENAI_API_KEY": KEY}, configured="") == {
        "endpoint": "https://api.openai.com/v1",
        "source": "OPENAI_API_KEY",
        "hasKey": True,
    }
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": "http://gw/v1"}
    assert server_endpoint(env, configured="")["source"] == "OPENAI_BASE_URL"
    # FIGURE_CHAT_API_KEY without an endpoint: the figure server refuses to send it anywhere.
    assert server_endpoint({"FIGURE_CHAT_API_KEY": KEY}, configured="")["endpoint"] is None


def test_an_endpoint_that_could_carry_a_secret_is_not_published():
    for endpoint in (f"http://user:{KEY}@host/v1", f"http://host/v1?key={KEY}", f"http://host/v1#{KEY}"):
        published = json.dumps(server_endpoint({"FIGURE_CHAT_ENDPOINT": endpoint}, configured=""))
        assert KEY not in published


def test_the_configured_endpoint_reaches_the_figure_server_with_its_source(monkeypatch):
    monkeypatch.delenv("FIGURE_CHAT_ENDPOINT", raising=False)
    monkeypatch.setattr(proxy, "_configured_endpoint", lambda: "http://ollama:11434/v1")
    env = proxy._environment()
    assert env["FIGURE_CHAT_ENDPOINT"] == "http://ollama:11434/v1"
    assert env["FIGURE_CHAT_ENDPOINT_SOURCE"] == "config"
    monkeypatch.setenv("FIGURE_CHAT_ENDPOINT", "http://vllm/v1")
    assert "FIGURE_CHAT_ENDPOINT_SOURCE" not in proxy._environment()


@pytest.fixture
def jp_server_config(monkeypatch):
    monkeypatch.delenv("FIGURE_CHAT_ENDPOINT", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("FIGURE_CHAT_API_KEY", KEY)
    return {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_figure_chat": True}},
        "FigureChat": {"endpoint": "http://vllm.cluster:8000/v1"},
    }


async def test_the_running_server_publishes_its_endpoint_not_its_key(jp_serverapp):
    page_config = jp_serverapp.web_app.settings["page_config_data"]
    option = page_config["figureChatServerEndpoint"]
    assert json.loads(option) == {
        "endpoint": "http://vllm.cluster:8000/v1",
        "source": "c.FigureChat.endpoint",
        "hasKey": True,
    }
    assert KEY not in json.dumps(page_config, default=str)

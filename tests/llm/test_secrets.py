"""No credential in any artifact: URL credentials refused, echoed auth headers redacted everywhere.

The end-to-end tests run the plugin against a real HTTP server on 127.0.0.1 that answers every request
with 401 and quotes every request header back (in the error body and in response headers, which httpcore
logs at DEBUG level), at each log level, then grep the terminal output and every file the run left under
its rootdir (JSON report, JUnit XML, log file, caches, run directories).
"""

from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from _suites import tiny_suite

from pytest_vitabench.llm import LLMClient, LLMError, LLMSettings
from pytest_vitabench.llm.secrets import CredentialsInURL, check_base_url, redact, redact_url

KEY = "sk-test-ECHOED-0123456789abcdef"
URL_PASSWORD = "hunter2-url-password"
KEY_ENV = "VITA_SECRETS_TEST_KEY"


class EchoServer:
    """Answers every POST with every request header quoted back, like a careless proxy.

    ``status`` 401 quotes them in an error body; 200 in the content of a chat completion.
    """

    def __init__(self, status: int = 401) -> None:
        self.headers: list[dict[str, str]] = []
        self.status = status
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                headers = dict(self.headers)
                server.headers.append(headers)
                quoted = f"you sent {json.dumps(headers)}"
                if server.status == 200:
                    body = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                       "choices": [{"index": 0, "finish_reason": "stop",
                                                    "message": {"role": "assistant", "content": quoted}}],
                                       "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()
                else:
                    body = json.dumps({"error": {"message": f"invalid credentials; {quoted}",
                                                 "type": "invalid_request_error", "headers": headers}}).encode()
                self.send_response(server.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(f"X-Echo-{name}", value)
                self.end_headers()
                self.wfile.write(body)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.http.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/v1"

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture
def echo():
    server = EchoServer()
    yield server
    server.close()


def _leaks(text: str) -> list[str]:
    """Every credential fragment found in ``text``."""
    return [needle for needle in (KEY, KEY[8:], URL_PASSWORD, "Bearer sk", "Basic ") if needle in text]


def _artifacts(root: Path) -> dict[str, str]:
    """Every file under ``root`` (hidden directories included), as text; gzip files (the run directory's
    trajectories and snapshots) decompressed, so what they hold is searched too."""
    import gzip

    texts = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            if data[:2] == b"\x1f\x8b":
                data = gzip.decompress(data)
            texts[str(path.relative_to(root))] = data.decode("utf-8", "replace")
    return texts


# ------------------------------------------------------------------------------------ URL credentials


@pytest.mark.parametrize("url, shown", [
    (f"http://user:{URL_PASSWORD}@127.0.0.1:9/v1", "http://***@127.0.0.1:9/v1"),
    (f"https://{URL_PASSWORD}@proxy.example/v1", "https://***@proxy.example/v1"),
    (f"https://res.example/openai?api-version=2024-06-01&api-key={URL_PASSWORD}",
     "https://res.example/openai?api-version=***&api-key=***"),
])
def test_a_url_with_credentials_is_refused_without_repeating_them(url, shown):
    with pytest.raises(CredentialsInURL) as info:
        check_base_url(url)
    assert shown in str(info.value) and URL_PASSWORD not in str(info.value)
    assert "--vita-api-key-env" in str(info.value)


def test_plain_urls_pass():
    for url in ("http://127.0.0.1:8080/v1", "https://api.openai.com/v1", "https://x.example/v1?api-version=1"):
        check_base_url(url)
    assert redact_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1"


def test_the_client_refuses_credentials_from_the_option_and_from_the_environment(monkeypatch, echo):
    monkeypatch.setenv(KEY_ENV, KEY)
    with pytest.raises(CredentialsInURL):
        LLMClient(LLMSettings(base_url=echo.base_url.replace("//", f"//u:{URL_PASSWORD}@"), api_key_env=KEY_ENV))
    monkeypatch.setenv("OPENAI_BASE_URL", echo.base_url.replace("//", f"//u:{URL_PASSWORD}@"))
    with pytest.raises(CredentialsInURL):
        LLMClient(LLMSettings(api_key_env=KEY_ENV))
    assert echo.headers == []  # refused before any request


@pytest.mark.parametrize("text", [
    f'{{"Authorization": "Bearer {KEY}"}}',
    "[(b'X-Echo-Authorization', b'Basic dXNlcjpodW50ZXIy')]",
    "api-key: 0123456789abcdef and x-api-key=fedcba9876543210",
    f"GET http://user:{URL_PASSWORD}@host/v1/models",
])
def test_redact_removes_every_form_of_credential(text):
    clean = redact(text, KEY)
    assert not _leaks(clean) and "0123456789abcdef" not in clean and "fedcba9876543210" not in clean
    assert "dXNlcjpodW50ZXIy" not in clean


def test_redact_leaves_prose_alone():
    text = "Basic usage: the model counted 12 tokens; see https://example.com/v1/docs"
    assert redact(text) == text


def test_an_echoed_auth_header_stays_out_of_the_error_and_the_logs(monkeypatch, echo, caplog):
    monkeypatch.setenv(KEY_ENV, KEY)
    client = LLMClient(LLMSettings(base_url=echo.base_url, api_key_env=KEY_ENV, cache="off", max_retries=0))
    with caplog.at_level(logging.DEBUG), pytest.raises(LLMError) as info:
        client.complete("agent", model="m", messages=[{"role": "user", "content": "hi"}])
    assert {k.lower(): v for k, v in echo.headers[0].items()}["authorization"] == f"Bearer {KEY}"
    assert "HTTP 401" in str(info.value) and not _leaks(str(info.value))
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "X-Echo-Authorization" in logged or "x-echo-authorization" in logged.lower()  # httpcore logged them
    assert not _leaks(logged), logged


# ------------------------------------------------------------------------------------ through pytest


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    data = tiny_suite()[:1]
    data[0]["subtasks"] = data[0]["subtasks"][:1]
    (pytester.path / "tasks.json").write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return pytester


def test_credentials_in_the_base_url_are_a_usage_error_that_does_not_repeat_them(project, echo):
    url = echo.base_url.replace("//", f"//user:{URL_PASSWORD}@")
    result = project.runpytest("--vita-model", "stub-model", "--vita-base-url", url, "--vita-api-key-env", KEY_ENV,
                               "--vita-trials", "1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--vita-base-url or $OPENAI_BASE_URL) carries credentials*http://***@127.0.0.1*"])
    assert not _leaks(result.stdout.str() + result.stderr.str())
    assert echo.headers == []


@pytest.mark.parametrize("level", ["DEBUG", "INFO", "WARNING"])
def test_no_credential_reaches_any_artifact_at_any_log_level(project, echo, level):
    args = ["--vita-model", "stub-model", "--vita-user-model", "stub-user", "--vita-judge-model", "stub-judge",
            "--vita-base-url", echo.base_url, "--vita-api-key-env", KEY_ENV, "--vita-trials", "1",
            "--vita-report", "run.json", "--junitxml", "junit.xml", "-o", "junit_logging=all",
            "--log-level", level, "-o", "log_cli=true", "--log-cli-level", level,
            "--log-file", "run.log", "--log-file-level", level, "-vv", "--tb=long", "-rA"]
    # The preflight stops the run at once, quoting the server's answer (which echoes the headers) redacted.
    refused = project.runpytest(*args)
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*401*"])
    assert not _leaks(refused.stdout.str() + refused.stderr.str())
    result = project.runpytest(*args, "--vita-preflight", "off")
    # The run reached the server (so there was something to leak) and failed as an infrastructure error.
    sent = [{name.lower(): value for name, value in headers.items()} for headers in echo.headers]
    assert sent and all(h["authorization"] == f"Bearer {KEY}" for h in sent)
    result.stdout.fnmatch_lines(["*HTTP 401*"])
    assert not _leaks(result.stdout.str() + result.stderr.str())
    artifacts = _artifacts(project.path)
    assert {"run.json", "junit.xml", "run.log"} <= set(artifacts)
    if level == "DEBUG":
        assert "x-echo-authorization" in artifacts["run.log"].lower()  # echoed headers were logged, redacted
    for name, text in artifacts.items():
        assert not _leaks(text), f"{name} leaks a credential"


def test_an_answer_that_quotes_the_key_is_recorded_and_cached_without_it(project):
    server = EchoServer(status=200)
    try:
        result = project.runpytest(
            "--vita-model", "stub-model", "--vita-base-url", server.base_url, "--vita-api-key-env", KEY_ENV,
            "--vita-trials", "1", "--vita-max-steps", "4", "--vita-cache", "all", "--vita-report", "run.json",
            "--junitxml", "junit.xml", "--log-level", "DEBUG", "--log-file", "run.log", "-vv")
    finally:
        server.close()
    assert server.headers and KEY in json.dumps(server.headers)
    from pytest_vitabench.runs import open_run

    run = open_run(project.path / "run.json")
    recorded = run.messages(run.results[0]["nodeid"])
    assert "you sent" in json.dumps(recorded)  # the echo was recorded, redacted
    assert any(name.startswith(".vitabench/runs/") and "blobs" in name for name in _artifacts(project.path))
    assert not _leaks(result.stdout.str() + result.stderr.str())
    artifacts = _artifacts(project.path)
    assert any(name.startswith(".vitabench/cache/llm/") for name in artifacts)
    for name, text in artifacts.items():
        assert not _leaks(text), f"{name} leaks a credential"


def test_the_recorded_command_line_keeps_no_url_credentials_in_structured_options():
    """The report and the run manifest record the command line: a URL inside a KEY=VALUE option loses its
    credentials as a URL option's does (``--vita-limits url=redis://:password@host``)."""
    from pytest_vitabench.run.core import RunCore

    recorded = " ".join(RunCore.command([
        "--vita-limits", f"url=redis://:{URL_PASSWORD}@127.0.0.1:6379/0", f"--vita-limits=rpm=5,url=rediss://u:{URL_PASSWORD}@h/0",
        "--vita-base-url", f"https://user:{URL_PASSWORD}@host/v1?api-key={URL_PASSWORD}", "-k", "U1"]))
    assert URL_PASSWORD not in recorded
    assert "url=redis://***@127.0.0.1:6379/0" in recorded and recorded.endswith("-k U1")

"""Every role and backend goes through the run's one LLM client: its key, limits, timeout, cache and ledger."""

from __future__ import annotations

import json

import pytest

SECRET = "sk-test-SECRET-0123456789abcdefghij"


@pytest.mark.parametrize("endpoint_option, workers", [("embedding-base-url", 0), ("base-url", 2)])
def test_rag_endpoint_embeddings_use_the_run_key_and_reach_the_usage_table(project, stub, monkeypatch,
                                                                            endpoint_option, workers):
    monkeypatch.setenv("VITA_STUB_KEY", SECRET)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    path = project.path / "run.json"
    args = ["--vita-report", str(path), "--vita-trials", "1", "--vita-memory", "rag", "--vita-embedding-model",
            "stub-embed", *(["--vita-memory-args",
                             f"embedding-base-url={stub.base_url}"] if endpoint_option == "embedding-base-url"
                           else ["--vita-base-url",
                                 stub.base_url]), "--vita-api-key-env", "VITA_STUB_KEY", "--vita-limits", "timeout=30",
            "--vita-preflight", "off", "-p", "no:cacheprovider"]
    if workers:  # the workers' usage reaches the controller's table and report
        pytest.importorskip("xdist")
        args += ["-n", str(workers)]
    # a subprocess: numpy (the vectors) cannot be imported twice in one process, as pytester's inline runs would
    result = project.runpytest_subprocess(*args)
    report = json.loads(path.read_text())
    embedding_calls = [h for h, p in zip(stub.headers, stub.paths, strict=True) if p.endswith("/embeddings")]
    assert embedding_calls, "the rag memory sent no embedding request to the endpoint"
    assert all({k.lower(): v for k, v in h.items()}["authorization"] == f"Bearer {SECRET}" for h in embedding_calls)
    usage = report["usage"]["roles"]["embeddings"]
    assert usage["requests"] == len(embedding_calls)  # every request the endpoint saw is in the ledger
    assert usage["prompt_tokens"] > 0
    result.stdout.fnmatch_lines(["role * requests * cached*", "embeddings *"])
    assert report["config"]["timeout"] == 30 and report["config"]["api_key_env"] == "VITA_STUB_KEY"
    assert SECRET not in path.read_text() and SECRET not in result.stdout.str()


def test_rag_embeddings_without_a_key_for_openai_fail_naming_the_option(project, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = project.runpytest("--vita-memory", "rag", "--vita-embedding-model", "text-embedding-3-small")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*embedding model 'text-embedding-3-small'*--vita-memory-args embedding-base-url*"])

"""Running items: outcomes, failure messages, the JSON report, JUnit, fail-under, xdist aggregation."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET

import pytest

SECRET = "sk-test-SECRET-0123456789abcdefghij"


def _report(project, *args):
    path = project.path / "run.json"
    result = project.runpytest("--vita-report", str(path), *args)
    return result, json.loads(path.read_text())


def test_items_pass_and_fail_with_rubric_messages(project):
    # trial seeds: t0 even -> right order (passes), t1 odd -> popular wrong store (fails)
    result = project.runpytest("--vita-trials", "2", "-k", "U2")
    result.stdout.fnmatch_lines([
        "*U2::s1[[]full_context-t1[]]*",
        "reward 0.0: 1 unmet of 2*",
        "  x The order is for product P2",
        "      because: delivery OT* at S1 (Popular Noodles): product_ids is *'P1' (Beef noodles with cilantro)*, "
        "missing *'P2' (Beef noodles, no cilantro)*",
        "*1 failed, 1 passed*",
    ])
    result.stdout.no_fnmatch_line("*Traceback*")
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_terminal_table_is_printed_once(project):
    result = project.runpytest("--vita-trials", "2")
    assert result.stdout.str().count("VitaBench results") == 1
    result.stdout.fnmatch_lines(["*full_context*subtask*0.500*", "*items: 3 passed, 3 failed, 0 error*"])


def test_json_report_schema(project, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    result, report = _report(project, "--vita-trials", "2", "--vita-memory", "none,groundtruth")
    assert report["schema"] == "vitabench-report/2"
    run_block = report["run"]
    assert run_block["planned"] == 12 and run_block["completed"] == 12 and run_block["partial"] is False
    assert run_block["python"] and run_block["plugin_version"] and run_block["command"][0] == "pytest"
    assert run_block["started"] <= run_block["finished"] and "git_commit" in run_block
    config = report["config"]
    assert config["memory"] == ["none", "groundtruth"] and config["trials"] == 2 and config["seed"] == 0
    assert config["plugin_version"] and len(next(iter(config["suites"].values()))) == 64
    metrics = report["metrics"]
    assert set(metrics) == {"none", "groundtruth"}
    level = metrics["groundtruth"]["subtask"]
    assert {"avg@2", "pass@2", "pass^2", "n_units", "ci95", "by_domain", "by_skill"} <= set(level)
    assert level["avg@2"] == 0.5 and level["pass@2"] == 1.0 and level["pass^2"] == 0.0 and level["n_units"] == 3
    assert set(level["by_skill"]) == {"personalize", "proactive"}
    assert len(report["results"]) == 12
    record = next(r for r in report["results"] if r["nodeid"] == "tasks.json::U1::s1[groundtruth-t0]")
    assert {"nodeid", "user_id", "subtask_id", "domain", "skills", "memory", "trial", "reward", "outcome",
            "rubrics", "termination", "steps", "usage", "duration_s", "messages_sha256",
            "snapshot_sha256"} <= set(record)
    # Schema /2: trajectories and snapshots live in the run directory, read back through open_run.
    assert "messages" not in record and "memory_snapshot" not in record
    assert record["outcome"] == "passed" and record["reward"] == 1.0 and record["termination"] == "agent_stop"
    from pytest_vitabench.runs import open_run

    run = open_run(project.path / "run.json")
    assert "no cilantro" in run.memory_snapshot(record["nodeid"])
    messages = run.messages(record["nodeid"])
    assert messages[0]["content"] == "Hello, how can I help you?"
    assert any(m["tool_calls"] for m in messages if m["role"] == "assistant")
    assert [r["met"] for r in record["rubrics"]] == [True, True]
    assert run.memory_snapshot("tasks.json::U1::s1[none-t0]") == ""
    assert SECRET not in (project.path / "run.json").read_text() and SECRET not in result.stdout.str()


def test_junit_properties(project, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    path = project.path / "junit.xml"
    project.runpytest("--vita-trials", "1", f"--junitxml={path}")
    text = path.read_text()
    assert SECRET not in text
    root = ET.fromstring(text)
    case = next(c for c in root.iter("testcase") if c.get("name") == "s1[full_context-t0]"
                and "U2" in c.get("classname", ""))
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props == {"vita_reward": "1.0", "vita_memory": "full_context", "vita_trial": "0", "vita_domain": "delivery",
                     "vita_skills": "personalize", "vita_steps": props["vita_steps"], "vita_termination": "agent_stop",
                     "vita_prompt_tokens": "0", "vita_cached_prompt_tokens": "0", "vita_completion_tokens": "0",
                     "vita_cost_usd": "0.0"}
    assert int(props["vita_steps"]) >= 4
    suite_props = {p.get("name"): p.get("value") for p in root.find("testsuite").find("properties")}
    assert suite_props["vita_model"] == "reference" and suite_props["vita_full_context_avg@1"] == "1.0"
    low, high = (float(suite_props[f"vita_full_context_avg@1_ci95_{end}"]) for end in ("low", "high"))
    assert low == high == 1.0
    assert suite_props["vita_full_context_n_units"] == "3" and suite_props["vita_full_context_n_errors"] == "0"


def test_fail_under_decides_the_exit_status(project):
    result = project.runpytest("--vita-trials", "2", "--vita-fail-under", "avg@2=0.5")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["*fail-under thresholds met*"])
    result = project.runpytest("--vita-trials", "2", "--vita-fail-under", "avg@2=0.5,pass^2=0.1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAIL-UNDER: full_context subtask pass^2 = 0.000 < 0.100*"])


def test_infrastructure_errors_are_errors_and_count_as_failures(project):
    project.makeconftest(
        "import pytest\n"
        "class Broken:\n"
        "    def respond(self, setup, messages):\n"
        "        raise ConnectionError('endpoint unreachable')\n"
        "@pytest.fixture(scope='session')\n"
        "def vita_agent():\n"
        "    return Broken()\n")
    result, report = _report(project, "--vita-trials", "1", "--vita-fail-under", "avg@1=0.0")
    result.stdout.fnmatch_lines(["*infrastructure error: ConnectionError: endpoint unreachable*", "*3 error*"])
    assert result.ret == 6  # with a gate, infrastructure errors have their own exit status, even when thresholds hold
    result.stdout.fnmatch_lines(["*exit status 6 (infrastructure errors): 3 item(s)*"])
    result.stdout.no_fnmatch_line("*def vita_result*")  # no fixture source on an infrastructure error
    assert {r["outcome"] for r in report["results"]} == {"error"}
    level = report["metrics"]["full_context"]["subtask"]
    assert level["n_units"] == 3 and level["avg@1"] == 0.0 and level["n_errors"] == 3


@pytest.mark.skipif(sys.platform == "win32", reason="xdist subprocess test")
def test_xdist_gives_the_same_metrics_as_a_serial_run(project):
    pytest.importorskip("xdist")
    serial = project.path / "serial.json"
    parallel = project.path / "parallel.json"
    project.runpytest_subprocess("--vita-trials", "2", "--vita-memory", "none,full_context",
                                 "--vita-report", str(serial), "-p", "no:cacheprovider")
    result = project.runpytest_subprocess("--vita-trials", "2", "--vita-memory", "none,full_context",
                                          "--vita-report", str(parallel), "-n", "2", "-p", "no:cacheprovider")
    assert result.stdout.str().count("VitaBench results") == 1
    a, b = json.loads(serial.read_text()), json.loads(parallel.read_text())
    assert a["metrics"] == b["metrics"]
    assert [r["nodeid"] for r in a["results"]] == [r["nodeid"] for r in b["results"]]
    assert len(b["results"]) == 12
    assert b["config"]["suite_languages"] == a["config"]["suite_languages"] == {str(project.path / "tasks.json"): "en"}


_CONTROLLER_SUITE_SPY = '''
import json as _json
from pytest_vitabench.run.runner import ItemRunner as _Runner


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        return
    loads, original = [], _Runner.suite

    def spy(self, path, *, lazy=False):
        loads.append(str(path))
        return original(self, path, lazy=lazy)

    def restore_and_write():
        _Runner.suite = original
        (config.rootpath / "controller_loads.json").write_text(_json.dumps(loads))

    _Runner.suite = spy
    config.add_cleanup(restore_and_write)
'''


@pytest.mark.skipif(sys.platform == "win32", reason="xdist subprocess test")
def test_under_xdist_the_controller_loads_no_suite_to_name_its_language(project):
    # The workers collect and send the language they found; loading the paper suite on the controller
    # after the last item took a second of the run's end.
    pytest.importorskip("xdist")
    conftest = project.path / "conftest.py"
    conftest.write_text(conftest.read_text() + _CONTROLLER_SUITE_SPY)
    result = project.runpytest_subprocess("--vita-trials", "1", "-n", "2", "-p", "no:cacheprovider")
    assert result.stdout.str().count("VitaBench results") == 1
    assert json.loads((project.path / "controller_loads.json").read_text()) == []


def test_a_session_without_suites_is_untouched(pytester):
    pytester.makepyfile(test_plain="""
        import sys
        def test_plain():
            # modules only: which packages hold them is the layout's business, not this test's
            loaded = sorted(m for m in sys.modules
                            if m.startswith("pytest_vitabench.") and not hasattr(sys.modules[m], "__path__"))
            # the options (settings.py) and the session objects need only the standard library
            # the settings' parsers are standard-library only: registering the options loads nothing more
            assert loaded == sorted(["pytest_vitabench.pytest_plugin.controller", "pytest_vitabench.options.fail_under",
                              "pytest_vitabench.formulas", "pytest_vitabench.pytest_plugin.hookspecs",
                              "pytest_vitabench.options.model_args", "pytest_vitabench.options.values",
                              "pytest_vitabench.pytest_plugin.plugin", "pytest_vitabench.pytest_plugin.session",
                              "pytest_vitabench.options.settings", "pytest_vitabench.options.spelling",
                              "pytest_vitabench.options.declare", "pytest_vitabench.options.parts"]), loaded
            heavy = [m for m in ("pydantic", "openai", "rapidfuzz", "numpy") if m in sys.modules]
            assert heavy == [], heavy
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "VitaBench" not in result.stdout.str()


def test_an_llm_agent_runs_over_real_http_with_usage_and_no_key_in_outputs(project, monkeypatch):
    from _stub_llm import StubLLM, tool_call

    stub = StubLLM()
    try:
        monkeypatch.setenv("VITA_STUB_KEY", SECRET)
        project.makeconftest("")  # the built-in fixtures: the agent is the LLM behind the stub
        for _ in range(3):  # one subtask per user-subtask, trial 0
            stub.replies += [
                {"tool_calls": [tool_call("a", "create_delivery_order", {
                    "user_id": "U1", "store_id": "S2", "product_ids": ["P2"], "product_cnts": [1],
                    "address": "No. 1 Test Road, Home", "dispatch_time": "2030-01-01 00:00:00"})]},
                {"content": "Ordered. ###STOP###"},
            ]
        result, report = _report(project, "--vita-trials", "1", "--vita-model", "stub-model", "--vita-base-url",
                                 stub.base_url, "--vita-api-key-env", "VITA_STUB_KEY", "-k", "U1 and s1")
        assert len(stub.requests) == 2 and stub.requests[0]["model"] == "stub-model"
        assert stub.requests[0]["tools"] and stub.requests[0]["messages"][0]["role"] == "system"
        record = report["results"][0]
        assert record["usage"]["agent"]["requests"] == 2 and record["usage"]["agent"]["prompt_tokens"] == 22
        assert report["usage"]["roles"]["agent"]["requests"] == 2
        result.stdout.fnmatch_lines(["role * requests * cached*", "agent * 2 * 0*"])
        assert record["outcome"] == "failed"  # ordered but never paid
        assert SECRET not in (project.path / "run.json").read_text() and SECRET not in result.stdout.str()
    finally:
        stub.close()


def test_a_missing_api_key_is_a_usage_error(project, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = project.runpytest("--vita-model", "gpt-4.1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no API key: set $OPENAI_API_KEY*"])


def test_rate_and_concurrency_limits_hold_across_xdist_workers(project):
    """Whole episodes under -n 2 against one stub: the run-wide limits hold at the server."""
    pytest.importorskip("xdist")
    from _limits import assert_serial_rate_held
    from _stub_llm import StubLLM

    project.makeconftest("")  # the built-in fixtures: the agent is the LLM behind the stub
    stub = StubLLM(delay=0.05)
    try:
        stub.replies += [{"content": "Nothing for you today. ###STOP###"}] * 12
        path = project.path / "run.json"
        result = project.runpytest_subprocess(
            "-n", "2", "-p", "no:cacheprovider", "--vita-trials", "4", "--vita-model", "stub-model",
            "--vita-base-url", stub.base_url, "--vita-limits", "rpm=4", "-o", "vita_limits=window=1",
            "--vita-limits", "in-flight=1", "--vita-report", str(path))
        report = json.loads(path.read_text())
        assert len(stub.requests) == 12 and len(report["results"]) == 12
        assert stub.peak_live == 1  # counted at the server, before each answer leaves
        assert_serial_rate_held(stub.times, 4, 1.0)  # counted by order, not by the clock: tests/_limits.py
        assert report["usage"]["roles"]["agent"]["requests"] == 12  # both workers' ledgers merged
        assert result.stdout.str().count("VitaBench results") == 1
    finally:
        stub.close()


def test_all_three_roles_over_http_with_a_cached_rerun(project, monkeypatch):
    """Agent, user simulator and judge are LLMs behind one stub; a second run takes the judge from the cache."""
    from _stub_llm import StubLLM, tool_call

    project.makeconftest("")
    monkeypatch.chdir(project.path)
    stub = StubLLM()
    verdicts = json.dumps([{"rubric_idx": i, "met": True, "justification": "order [3] is right"} for i in (1, 2)])
    try:
        stub.replies += [
            {"tool_calls": [tool_call("a", "create_delivery_order", {
                "user_id": "U2", "store_id": "S2", "product_ids": ["P2"], "product_cnts": [1],
                "address": "No. 1 Test Road, Home", "dispatch_time": "2030-01-01 00:00:00"})]},
            {"content": "Your noodles are ordered. Anything else?"},
            {"content": "No, thanks. ###STOP###"},
            {"content": verdicts},
        ]
        args = ["--vita-trials", "1", "--vita-model", "m-agent", "--vita-user-model", "m-user",
                "--vita-judge-model", "m-judge", "--vita-base-url", stub.base_url, "-k", "U2"]
        result, report = _report(project, *args)
        assert [r["model"] for r in stub.requests] == ["m-agent", "m-agent", "m-user", "m-judge"]
        record = report["results"][0]
        assert record["outcome"] == "passed" and record["termination"] == "user_stop"
        assert [r["met"] for r in record["rubrics"]] == [True, True]
        assert {role: record["usage"][role]["requests"] for role in ("agent", "user", "judge")} == {
            "agent": 2, "user": 1, "judge": 1}
        # the same run again: the agent and user are asked again (not cached by default), the judge is not
        stub.replies += stub_replies_again()
        project.runpytest(*args)
        assert [r["model"] for r in stub.requests[4:]] == ["m-agent", "m-agent", "m-user"]
        # with --vita-cache all, a repeated run makes no request at all
        stub.replies += stub_replies_again()
        project.runpytest(*args, "--vita-cache", "all")
        before = len(stub.requests)
        rerun, again = _report(project, *args, "--vita-cache", "all")
        assert len(stub.requests) == before
        assert again["results"][0]["outcome"] == "passed"
        assert again["results"][0]["usage"]["agent"]["cached_requests"] == 2
    finally:
        stub.close()


def stub_replies_again():
    from _stub_llm import tool_call

    return [
        {"tool_calls": [tool_call("a", "create_delivery_order", {
            "user_id": "U2", "store_id": "S2", "product_ids": ["P2"], "product_cnts": [1],
            "address": "No. 1 Test Road, Home", "dispatch_time": "2030-01-01 00:00:00"})]},
        {"content": "Your noodles are ordered. Anything else?"},
        {"content": "No, thanks. ###STOP###"},
    ]


def test_a_reported_item_no_longer_holds_its_trajectory(project):
    # A worker that kept every item's trajectory and memory snapshot until the end grew by ~0.1 MB per item.
    project.makeconftest((project.path / "conftest.py").read_text() + """

@pytest.hookimpl(trylast=True)
def pytest_runtest_logfinish(nodeid):
    import gc
    from pytest_vitabench.result import ItemResult
    held = [o for o in gc.get_referrers(*[r for r in gc.get_objects() if isinstance(r, ItemResult)])
            if isinstance(o, dict) and "vita_ref" in o]
    assert not held, f"{nodeid}: an item still holds its result"
""")
    result = project.runpytest("--vita-trials", "2", "-k", "U2")
    result.stdout.fnmatch_lines(["*reward 0.0: 1 unmet of 2*", "*1 failed, 1 passed*"])  # its failure text too
    result.stdout.no_fnmatch_line("*still holds its result*")

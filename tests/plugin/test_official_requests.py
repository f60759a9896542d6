"""Under the official wording, what each role sends over real HTTP: a stand-in harness, the role stub."""

from __future__ import annotations

import json

import pytest
from _fake_official import make_checkout
from _side_by_side import AGENT, JUDGE, USER, recorded, role_stub
from _suites import tiny_suite


@pytest.fixture
def requests(pytester: pytest.Pytester, tmp_path, monkeypatch):
    """Run U1's first subtask once with an LLM agent, user and judge at the role stub; the requests by role."""
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "tasks.json").write_text(json.dumps(tiny_suite()), encoding="utf-8")
    checkout = make_checkout(tmp_path / "harness")
    stub = role_stub()
    try:
        result = pytester.runpytest("--vita-profile", "official", "--vita-official-source", str(checkout),
                                    "--vita-model", AGENT, "--vita-user-model", USER, "--vita-judge-model", JUDGE,
                                    "--vita-base-url", stub.base_url, "--vita-trials", "1", "--vita-cache", "off",
                                    "--vita-concurrency", "1", "-k", "U1 and s1 and not s10")
    finally:
        stub.close()
    assert result.ret in (0, 1), result.stdout.str()
    out: dict[str, list[dict]] = {}
    for request in recorded(stub):
        out.setdefault(request.role, []).append(request.body)
    return out


def test_the_agent_sees_the_official_prompt_and_tools_but_no_greeting(requests):
    first = requests["agent"][0]
    system, *rest = first["messages"]
    assert system["content"].startswith("English policy at 2025-06-01 11:00:00 Sunday\nsecond line\n\n\n"
                                        "English personalization_agent_addendum text")
    assert "\n\n## Account\n- user_id: U1" in system["content"] and "\n\n## Memory\n" in system["content"]
    assert rest == [{"role": "user", "content": "Order me a bowl of noodles for lunch."}]  # no greeting
    weather = next(t["function"] for t in first["tools"] if t["function"]["name"] == "weather")
    assert weather["description"] == "Weather\n\nBefore:\n    - an address\nAfter:\n    - a forecast"
    assert first["seed"] == 626729  # the official trial seed of base seed 300


def test_the_user_simulator_and_the_judge_send_the_official_wording(requests):
    user = requests["user"][0]["messages"]
    # The persona is the profile's str(); no proactive section on a subtask that is not proactive.
    assert user[0]["content"] == ("English persona {'user_id': 'U1', 'city': 'Beijing'}; request Order me a bowl "
                                  "of noodles for lunch.; end\nsecond line\n")
    assert [m["role"] for m in user[1:]] == ["user", "assistant", "user"]
    assert user[1]["content"] == "Hi"  # the stand-in harness's greeting
    judge = requests["judge"][0]["messages"]
    assert judge[0]["content"].startswith("English judge {'system_time': '2025-06-01 11:00:00 Sunday', "
                                          "'database': []} Order me a bowl of noodles for lunch. 1/1")
    rubrics = json.loads(judge[1]["content"].split("<r>\n", 1)[1].split("\n</r>", 1)[0])
    # The data's rubrics only (not the suite's machine-checked extras), with the official ids.
    assert [(r["rubric_idx"], r["rubric"], r["justification"]) for r in rubrics] == [
        ("rubric_0", "The order is for product P2", "UNJUDGED"), ("rubric_1", "The order is paid", "UNJUDGED")]

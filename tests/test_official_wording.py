"""Requests composed in the official wording from a copy of the harness (a stand-in in our own words), and
what ``comparable_with_leaderboard`` requires of a run."""

from __future__ import annotations

import json

import pytest
from _fake_official import make_checkout

from pytest_vitabench.messages import Message, ToolCall
from pytest_vitabench.official.source import OfficialSourceError, locate
from pytest_vitabench.official.tool_schemas import official_tool_schemas
from pytest_vitabench.official.wording import OfficialWording, check_wording
from pytest_vitabench.run.comparability import NO_MODELS_YAML, comparability
from pytest_vitabench.run.wiring import Benchmark
from pytest_vitabench.suite.schema import DailyRecord, EventRecord


@pytest.fixture
def checkout(tmp_path):
    return make_checkout(tmp_path / "harness")


@pytest.fixture
def english(checkout):
    return OfficialWording(locate(str(checkout)), "en")


def test_the_agent_prompt_is_policy_addendum_profile_and_memory_in_the_official_order(english):
    prompt = english.agent_system_prompt(time="2025-06-01 11:00:00 Sunday", profile={"name": "Ann", "pets": ["a", "b"]},
                                         memory="- remembered", proactive=True)
    assert prompt == ("English proactive policy at 2025-06-01 11:00:00 Sunday\nsecond line\n\n\n"
                      "English personalization_agent_addendum text\nsecond line\n\n\n"
                      "## Account\n- name: Ann\n- pets: a、b\n\n## Memory\n- remembered")
    assert "## Account" not in english.agent_system_prompt(time="t", profile={}, memory="", proactive=False)


def test_records_use_the_official_labels_and_dialogue_line(english):
    records = [DailyRecord(date="2025-05-01", behavior=[{"behavior_type": "search", "content": {"q": "茶"}},
                                                        {"behavior_type": "unlisted", "content": "plain"}],
                           dialogue=[{"role": "user", "content": "hi"}]),
               EventRecord(type="search", timestamp="2025-05-02", content={"a": 1})]
    assert english.render_records(records).splitlines() == [
        '- [2025-05-01] [SEARCH] {"q": "茶"}', "- [2025-05-01] [unlisted] plain",
        '- [2025-05-01] [TALK] [{"role": "user", "content": "hi"}]',
        "- [2025-05-02] [SEARCH] {", '  "a": 1', "}"]


def test_groundtruth_preferences_and_their_fallback(english):
    assert english.render_preferences({"current": {"Food": ["tea"], "Note": "x", "Empty": []}}) == \
        "## TAGS\n<Food>\n    * tea\n<Note>x"
    assert english.render_preferences(None) == "NO PREFS"


def test_the_user_prompt_has_the_proactive_section_only_on_proactive_subtasks_with_an_intention(english):
    with_section = english.user_system_prompt(persona={"a": 1}, instruction="tea", proactive=True, intention="two")
    assert with_section.startswith("English persona {'a': 1}; request tea; English hidden: two\nsecond line\n\nend")
    for proactive, intention in ((False, "two"), (True, "")):
        assert "hidden" not in english.user_system_prompt(persona={}, instruction="t", proactive=proactive,
                                                          intention=intention)


def test_the_judge_window_request(english):
    states = english.judge_rubrics([(english.rubric_id(0), "paid", english.initial_justification(), False)])
    assert json.loads(states) == [{"rubric_idx": "rubric_0", "rubric": "paid", "justification": "UNJUDGED",
                                   "meetExpectation": False}]
    system, user = english.judge_messages(time="T", instruction="tea", transcript="[1] user: x",
                                          rubrics=states, window=(1, 2))
    assert system["content"].startswith("English judge {'system_time': 'T', 'database': []} tea 1/2")
    assert user["content"] == f"<w>\n[1] user: x\n</w>\n<r>\n{states}\n</r>"
    messages = [Message(role="assistant", content="Hi"), Message(role="user", content=""),
                Message(role="assistant", content=None, tool_calls=[ToolCall(id="c", name="find", arguments={
                    "keywords": ["tea"], "n": 2}), ToolCall(id="d", name="pay", arguments={})]),
                Message(role="tool", content="found", tool_call_id="c", name="find")]
    assert english.judge_transcript(messages, 0, 4).splitlines() == [
        "[1] assistant: Hi", "[3] assistant: find(keywords=['tea'], n=2).pay()", "[4] tool: found"]


def test_the_full_trajectory_judge_request(english):
    states = english.judge_rubrics([(english.rubric_id(0), "paid", english.initial_justification(), False)])
    system, user = english.judge_messages(time="T", instruction="tea", transcript="[1] user: x\n[2] user: y",
                                          rubrics=states)
    assert system == {"role": "system",
                      "content": "English full judge {'system_time': 'T', 'database': []} tea\nsecond line\n"}
    # the official f-string's own indentation, the transcript's later lines as they are
    assert user["content"] == (f"\n    <t>\n    [1] user: x\n[2] user: y\n    </t>\n"
                               f"    <r>\n    {states}\n    </r>\n    ")


def test_a_copy_without_the_full_trajectory_judge_fails_naming_it(checkout):
    path = checkout / "src" / "vita" / "evaluator" / "evaluator_traj.py"
    path.write_text(path.read_text().replace("_evaluate_trajectory", "_renamed"))
    with pytest.raises(OfficialSourceError, match="_evaluate_trajectory"):
        check_wording(locate(str(checkout)))


def test_the_memory_update_request_and_tools(english, checkout):
    system, user = english.memory_update_messages(current="", records="R", max_tokens=7)
    assert system == {"role": "system", "content": "SYSTEM"}
    assert user["content"] == "English memory EMPTY / R\nsecond line\n\n\n(budget 7)"
    chinese = OfficialWording(locate(str(checkout)), "zh")
    assert chinese.memory_update_messages(current="C", records="R", max_tokens=7)[1]["content"].endswith("（预算 7）")
    assert english.rewrite_memory_empty() == "NOTHING YET"
    assert english.memory_tool_description("query_preference_memory") == "Ask it.\n\nMore words."
    assert (english.greeting(), chinese.greeting()) == ("Hi", "你好")


def test_tool_schemas_follow_the_official_builder(english):
    tools = official_tool_schemas(english.source, "delivery", "en")
    assert [t["function"]["name"] for t in tools] == ["find_things", "weather"]  # the domain's, then shared
    find, weather = (t["function"] for t in tools)
    assert find["description"] == "Find things\n\nBefore:\n    - some words\nAfter:\n    - a list"
    assert find["parameters"] == {"properties": {"keywords": {"description": "words", "items": {"type": "string"},
                                                              "title": "Keywords", "type": "array"}},
                                  "required": ["keywords"], "title": "parameters", "type": "object"}
    # An Optional argument is flattened to its type, its default kept.
    assert weather["parameters"]["properties"]["day"] == {"default": None, "title": "Day", "type": "string"}
    ours = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in
            ("weather", "find_things", "read_preference_memory")]
    assert [t["function"]["name"] for t in english.tool_schemas("delivery", ours)] == [
        "find_things", "weather", "read_preference_memory"]


def test_an_unreadable_annotation_is_named(checkout):
    path = checkout / "src/vita/domains/ota/tools.py"
    path.write_text(path.read_text().replace("List[str]", "Mystery"))
    with pytest.raises(OfficialSourceError, match="cannot resolve the type Mystery"):
        official_tool_schemas(locate(str(checkout)), "ota", "zh")


@pytest.mark.parametrize("relative, old, new, message", [
    ("agent/personalization_agent.py", "profile_text", "account", "with the fields profile_text"),
    ("orchestrator/orchestrator.py", 'content = "你好" if', 'content = greet() if', "no content = 'a' if language"),
    ("memory/rewrite_memory.py", 'type_labels = {"search": "SEARCH"}', "type_labels = load()",
     "no literal type_labels"),
    ("evaluator/evaluator_traj.py", '"UNJUDGED"', "text", "gives 'justification' 0 different strings"),
    ("memory/rag_memory.py", 'content="SUMMARISE"', "content=system_text", "passes 0 string constants as content="),
    ("memory/rag_memory.py", "{c['type']} | {c['text']}", "{c.kind} | {c.text}",
     r"read\(\) has 0 f-strings with the fields timestamp, type, text"),
    ("memory/rag_memory.py", 'return "FOUND:\\n" + ', "return ", r"read\(\) has no heading"),
])
def test_a_copy_missing_a_piece_fails_before_any_item_naming_it(checkout, relative, old, new, message):
    path = checkout / "src" / "vita" / relative
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new))
    with pytest.raises(OfficialSourceError, match=message):
        check_wording(locate(str(checkout)))


def _bench(tmp_path, checkout, monkeypatch, **options):
    monkeypatch.setenv("VITA_TEST_KEY", "k")
    base = {"vita_profile": "official", "vita_model": "m", "vita_user_model": "u", "vita_judge_model": "j",
            "vita_base_url": "http://127.0.0.1:9/v1", "vita_api_key_env": "VITA_TEST_KEY",
            "vita_official_source": str(checkout), "vita_preflight": "off"}
    return Benchmark({**base, **options}, rootdir=tmp_path, state_dir=str(tmp_path / "llm"))


def test_with_the_official_source_only_what_is_not_yet_identical_keeps_a_run_from_comparable(tmp_path, checkout,
                                                                                              monkeypatch):
    bench = _bench(tmp_path, checkout, monkeypatch, vita_memory="full_context")
    assert comparability(bench.config, official_wording=True) == [NO_MODELS_YAML]
    assert bench.profile_summary()["not_comparable_because"] == [NO_MODELS_YAML]
    models = checkout / "src" / "vita" / "models.yaml"  # the official harness's own file: read as auto
    models.write_text("default:\n  temperature: 0.0\nmodels:\n" + "".join(f"  - name: {m}\n" for m in "muj"))
    with_models = _bench(tmp_path, checkout, monkeypatch, vita_memory="full_context")
    assert with_models.profile_summary()["not_comparable_because"] == []
    assert bench.config.seed == 300 and bench.config.trial_seed(0) == 626729  # the official trial seeds
    one_trial = _bench(tmp_path, checkout, monkeypatch, vita_memory="full_context", vita_trials="1")
    assert "1 trial(s), the leaderboard averages 4" in comparability(one_trial.config, official_wording=True)


@pytest.mark.parametrize("options, expected", [
    ({}, "rag embeddings by the local model use-multilingual-v3, not text-embedding-3-large at an endpoint"),
    ({"vita_embedding_model": "text-embedding-3-small"}, "rag embeddings by text-embedding-3-small, not "
                                                         "text-embedding-3-large"),
    ({"vita_embedding_model": "text-embedding-3-large", "vita_memory_args": "rag-threshold=0.2"}, "rag threshold "
                                                                                                  "0.2, not 0.3"),
    ({"vita_embedding_model": "text-embedding-3-large", "vita_memory_args": "rag-top-k=5"}, "rag top k 5, not 8"),
])
def test_rag_is_comparable_only_with_the_official_retrieval(tmp_path, checkout, monkeypatch, options, expected):
    bench = _bench(tmp_path, checkout, monkeypatch, vita_memory="rag", **options)
    assert expected in comparability(bench.config, official_wording=True)


def test_rag_with_the_official_retrieval_has_no_retrieval_reason(tmp_path, checkout, monkeypatch):
    bench = _bench(tmp_path, checkout, monkeypatch, vita_memory="rag", vita_embedding_model="text-embedding-3-large")
    reasons = comparability(bench.config, official_wording=True)
    # rag's requests are the official ones now: only what is not identical for every backend remains
    assert reasons == [NO_MODELS_YAML]  # no models.yaml given: the request settings are unknown


def test_agent_messages_in_the_official_form():
    from pytest_vitabench.agents.openai_agent import to_openai_messages

    messages = [Message(role="assistant", content=None, tool_calls=[ToolCall(id="c", name="find",
                                                                            arguments={"q": "茶"})]),
                Message(role="tool", content="found", tool_call_id="c", name="find")]
    official = to_openai_messages("S", messages, harness_form=True)
    assert official[1] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "find", "arguments": '{"q": "\\u8336"}'}}]}
    assert official[2] == {"role": "tool", "content": "found", "tool_call_id": "c", "name": "find"}
    ours = to_openai_messages("S", messages)
    assert ours[1]["content"] == "" and ours[1]["tool_calls"][0]["function"]["arguments"] == '{"q": "茶"}'
    assert "name" not in ours[2]


def _pydantic_built(source, domain, language):
    """Each tool's parameters as the official builder makes them: one pydantic model per tool and language,
    each argument a Field with its description (the schemas are built once per tool, descriptions put in)."""
    from typing import Any

    from pydantic import Field, create_model

    from pytest_vitabench.official import tool_schemas as ts

    methods = ts._tool_methods(source, source.package_dir / "domains" / domain / "tools.py")
    descriptions = source.tool_descriptions(domain, language)
    shared = ts.literal_assignment(source.package_dir / ts._TOOLKIT_SCHEMA,
                                   f"TOOLKIT_TOOL_DESCRIPTIONS_{ts.DESCRIPTION_SUFFIX[language]}")
    out = []
    for method in methods:
        arguments = (descriptions.get(method.name) or shared[method.name]).get("args") or {}
        fields = {}
        for p in method.parameters:
            annotation = Any if p.annotation is None else ts._annotation(source, method.module, p.annotation)
            fields[p.name] = (annotation, Field(p.default, description=arguments[p.name]) if p.name in arguments
                              else p.default)
        schema = create_model("parameters", **fields).model_json_schema()
        for name, prop in (schema.get("properties") or {}).items():
            if "anyOf" in prop:
                chosen = next((option for option in prop["anyOf"] if "type" in option), None)
                cleaned = {k: v for k, v in prop.items() if k != "anyOf"}
                if chosen is not None:
                    cleaned["type"] = chosen["type"]
                    if chosen["type"] == "array" and "items" in chosen:
                        cleaned["items"] = chosen["items"]
                schema["properties"][name] = cleaned
        out.append(schema)
    return out


@pytest.mark.parametrize("where", ["fake", "real"])
def test_tool_parameters_are_pydantic_s_with_their_descriptions_byte_for_byte(checkout, where):
    import json

    from _side_by_side import OFFICIAL_SOURCE

    if where == "real" and not OFFICIAL_SOURCE.is_dir():
        pytest.skip(f"no official source at {OFFICIAL_SOURCE}")
    source = locate(str(checkout if where == "fake" else OFFICIAL_SOURCE))
    described = 0
    for domain in ("delivery", "instore", "ota"):
        for language in ("en", "zh"):
            ours = [t["function"]["parameters"] for t in official_tool_schemas(source, domain, language)]
            assert json.dumps(ours, ensure_ascii=False) == \
                json.dumps(_pydantic_built(source, domain, language), ensure_ascii=False), (domain, language)
            described += sum("description" in p for s in ours for p in s.get("properties", {}).values())
    assert described

"""Declared tools: what the agent is shown is derived once per class from typed signatures and equals the
hand-written schemas it replaced; arguments are checked by pydantic with the same refusal texts; every
episode gets its own state while everything derived is shared."""

from __future__ import annotations

import copy
import inspect
import json
from pathlib import Path
from typing import Annotated, Any

import pytest

from pytest_vitabench.domains import DOMAINS, build_environment, domain_spec, tool_names
from pytest_vitabench.domains.base import Tool
from pytest_vitabench.domains.declare import Arg, ToolSet, tool
from pytest_vitabench.domains.shared_tools import SharedTools
from pytest_vitabench.domains.spec import DomainSpec
from pytest_vitabench.official.tool_answers import OFFICIAL_TOOLS

PINNED = Path(__file__).parent / "data" / "tool_schemas.json"
NOW = "2025-06-01 11:00:00"
LOC = {"address": "No. 1 Test Road, Home", "longitude": 116.40, "latitude": 39.90}


def shop_env() -> dict[str, Any]:
    shop = {"shop_id": "H1", "shop_name": "Tea House", "score": 4.2, "tags": ["tea"], "location": LOC,
            "enable_book": True, "book_price": 0, "enable_reservation": True,
            "products": [{"product_id": "Q1", "name": "Tea", "price": 30, "quantity": 5, "tags": []}]}
    return {"time": NOW, "user_id": "U1", "location": [LOC], "shops": {"H1": shop}}


def build(domain: str, environment: dict[str, Any] | None = None, **kwargs: Any):
    return build_environment(domain, environment or {}, user_id="U1", time=NOW, seed=1, **kwargs)


# ----------------------------------------------------------------------------------------- schemas


@pytest.mark.parametrize("domain", DOMAINS)
def test_derived_schemas_equal_the_hand_written_ones_byte_for_byte(domain: str) -> None:
    # tool_schemas.json was dumped from the hand-written schemas before the tools were declared; key order
    # matters too (it is what the model is sent, and what the LLM cache hashes).
    pinned = json.loads(PINNED.read_text(encoding="utf-8"))[domain]
    env = build(domain)
    shown = [{"kind": t.kind, **t.schema()} for t in env.tools.values()]
    assert json.dumps(shown, ensure_ascii=False) == json.dumps(pinned, ensure_ascii=False)


def test_a_merged_environment_offers_the_shared_tools_once_then_each_domains_in_order() -> None:
    pinned = json.loads(PINNED.read_text(encoding="utf-8"))
    env = build("delivery,ota")
    shared = [t["function"]["name"] for t in pinned["delivery"][:7]]
    expected = shared + [t["function"]["name"] for d in ("delivery", "ota") for t in pinned[d][7:]]
    assert list(env.tools) == expected == tool_names("delivery,ota")
    assert list(SharedTools.tool_names()) == shared


def test_schemas_and_validators_are_derived_once_per_class_and_shared_by_episodes() -> None:
    first, second = build("ota"), build("ota")
    assert domain_spec("ota").tools.specs() is domain_spec("ota").tools.specs()
    for name, tool_a in first.tools.items():
        tool_b = second.tools[name]
        assert tool_a.parameters is tool_b.parameters and tool_a.validator is tool_b.validator
        assert tool_a.validator is not None
    # The five pay_<kind>_order tools are one declaration: one schema, one validator.
    pays = [first.tools[f"pay_{kind}_order"] for kind in ("hotel", "attraction", "flight", "train", "taxi")]
    assert len({id(t.validator) for t in pays}) == 1


def test_the_registry_is_typed_specs_not_module_attributes() -> None:
    for name in DOMAINS:
        spec = domain_spec(name)
        assert isinstance(spec, DomainSpec) and spec.name == name and issubclass(spec.tools, ToolSet)
    with pytest.raises(ValueError, match="unknown domain"):
        domain_spec("cinema")


def test_the_domain_lists_outside_the_registry_are_the_registry():
    # The suite schema keeps its own tuple (it validates without loading a domain); the official source reads
    # the official harness's domain folders. Adding a domain must not leave either behind unnoticed.
    from pytest_vitabench.official.source import DOMAINS as OFFICIAL_FOLDERS
    from pytest_vitabench.suite.schema import DOMAINS as SUITE_DOMAINS

    assert SUITE_DOMAINS == DOMAINS and set(OFFICIAL_FOLDERS) <= set(DOMAINS)


def test_a_tool_with_an_official_counterpart_never_branches_to_it_itself():
    # ToolSet.tools binds such a tool to the official method under the official tool results, so a branch to it
    # in the tool's own body would be dead code that drifts from the binding.
    for tool_set in (SharedTools, *(domain_spec(name).tools for name in DOMAINS)):
        behaviour = OFFICIAL_TOOLS.get(tool_set)
        assert behaviour is not None and tool_set.official_class, tool_set
        for spec in tool_set.specs():
            if hasattr(behaviour, spec.method):
                source = inspect.getsource(getattr(tool_set, spec.method))
                assert f"self.answering.{spec.method}(" not in source, (tool_set.__name__, spec.method)


# ----------------------------------------------------------------------------------------- arguments


@pytest.mark.parametrize("arguments, refusal", [
    ({"user_id": "U1"}, "Error: missing required argument(s): shop_id, time"),
    ({"user_id": "U1", "shop_id": "H1", "time": NOW, "guests": 2, "vip": True},
     "Error: unknown argument(s): guests, vip; expected: user_id, shop_id, time, customer_count"),
    ({"user_id": "U1", "shop_id": "H1", "time": NOW, "customer_count": "2"},
     "Error: argument 'customer_count' must be integer, got str"),
    ({"user_id": "U1", "shop_id": "H1", "time": NOW, "customer_count": True},
     "Error: argument 'customer_count' must be integer, got a boolean"),
    ({"user_id": "U1", "shop_id": 7, "time": 8},
     "Error: argument 'shop_id' must be string, got int"),
    ({"time": 8, "shop_id": 7, "user_id": "U1"},  # the first wrong one in the order the agent wrote
     "Error: argument 'time' must be string, got int"),
])
def test_refusal_texts_for_bad_arguments(arguments: dict[str, Any], refusal: str) -> None:
    env = build("instore", shop_env())
    result = env.call("instore_reservation", arguments)
    assert result.error and result.content == refusal
    assert env.tool_errors == 1 and env.db.reservations == {}


def test_none_and_numbers_pass_the_type_check_as_before() -> None:
    env = build("delivery")
    assert env.call("longitude_latitude_to_distance", {"longitude1": 1, "latitude1": 2.5, "longitude2": 1,
                                                       "latitude2": 2.5}).content == "0.0"
    # None passes the JSON type check (the tool itself then decides), as with the hand-written checker.
    result = env.call("get_holiday_date", {"year": "2025", "holiday_name": None})
    assert result.error and "No holiday named None" in result.content


def test_without_the_argument_types_check_numeric_strings_become_numbers() -> None:
    lax = build("instore", shop_env(), checks=[])
    made = lax.call("create_instore_product_order", {"user_id": "U1", "shop_id": "H1", "product_id": "Q1",
                                                     "quantity": "2"})
    assert not made.error and json.loads(made.content)["products"][0]["quantity"] == 2
    still = lax.call("create_instore_product_order", {"user_id": "U1", "shop_id": "H1"})
    assert still.content == "Error: missing required argument(s): product_id"


def test_a_hand_written_tool_is_checked_against_its_own_schema() -> None:
    # Memory backends add plain Tool objects; they get a validator built from their literal schema.
    def make() -> Tool:
        schema = {"type": "object", "properties": {"query": {"type": "string", "description": "What."}},
                  "required": ["query"]}
        return Tool("query_preference_memory", "Search memory.", schema, lambda query: f"found {query}")

    env = build("delivery")
    env.add_tools([make()])
    assert env.call("query_preference_memory", {"query": "tea"}).content == "found tea"
    assert env.call("query_preference_memory", {"query": 3}).content == (
        "Error: argument 'query' must be string, got int"
    )
    assert env.call("query_preference_memory", []).content == "Error: arguments must be a JSON object, got list"


# ----------------------------------------------------------------------------------------- declaring


def test_a_declaration_needs_a_description_for_the_tool_and_every_parameter() -> None:
    class Undescribed(ToolSet):
        @tool()
        def lookup(self, code: str) -> str:
            """Look a code up."""
            return code

    class Silent(ToolSet):
        @tool()
        def lookup(self, code: Annotated[str, Arg("The code.")]) -> str:
            return code

    class Unsupported(ToolSet):
        @tool()
        def lookup(self, code: Annotated[set[str], Arg("The codes.")]) -> str:
            """Look codes up."""
            return ""

    with pytest.raises(TypeError, match="Arg"):
        Undescribed.specs()
    with pytest.raises(TypeError, match="no docstring"):
        Silent.specs()
    with pytest.raises(TypeError, match="no JSON-schema type"):
        Unsupported.specs()


def test_a_family_declares_one_tool_per_member_with_its_name_and_description() -> None:
    class Pets(ToolSet):
        @tool("write", name="feed_{kind}", each=("cat", "dog"))
        def feed(self, kind: str, grams: Annotated[int, Arg("How much.")] = 50) -> str:
            """Feed the {kind}."""
            return f"{kind} got {grams} g"

    specs = Pets.specs()
    assert [(s.name, s.description, s.kind) for s in specs] == [
        ("feed_cat", "Feed the cat.", "write"), ("feed_dog", "Feed the dog.", "write")]
    assert specs[0].parameters == {"type": "object", "properties": {
        "grams": {"type": "integer", "description": "How much."}}, "required": []}
    bound = {t.name: t for t in Pets(build("delivery")).tools()}  # type: ignore[arg-type]
    assert bound["feed_dog"].fn(grams=10) == "dog got 10 g"


# ----------------------------------------------------------------------------------------- isolation


def test_episodes_never_share_state_while_sharing_everything_derived() -> None:
    source = shop_env()
    pristine = copy.deepcopy(source)
    first = build("instore", source)
    schemas_before = json.dumps(first.tool_schemas())
    made = first.call("create_instore_product_order", {"user_id": "U1", "shop_id": "H1", "product_id": "Q1",
                                                       "quantity": 3})
    booked = first.call("instore_reservation", {"user_id": "U1", "shop_id": "H1", "time": "2025-06-02 12:00:00"})
    assert not made.error and not booked.error
    assert first.db.shops["H1"].products[0].quantity == 2

    second = build("instore", source)
    assert source == pristine  # the suite's dict is never mutated
    assert second.db.shops["H1"].products[0].quantity == 5
    assert second.db.orders == {} and second.db.reservations == {}
    assert second.call("get_instore_orders", {"user_id": "U1"}).content == "User has no instore orders"
    assert [r["new"] for r in first.records()] == [True, True] and second.records() == []
    # The same seed gives the second episode the same fresh ids: nothing carried over in a counter.
    again = second.call("create_instore_product_order", {"user_id": "U1", "shop_id": "H1", "product_id": "Q1"})
    assert json.loads(again.content)["order_id"] == json.loads(made.content)["order_id"]
    assert json.dumps(first.tool_schemas()) == schemas_before == json.dumps(second.tool_schemas())
    # Bound tools act on their own episode only.
    assert first.tools["get_instore_orders"].fn.__self__.env is first  # type: ignore[attr-defined]
    assert second.tools["get_instore_orders"].fn.__self__.env is second  # type: ignore[attr-defined]


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_closed_environment_is_freed_by_reference_counting_alone(domain: str) -> None:
    # Tools are methods bound to a tool set that holds the environment: without close() the episode's whole
    # database waits for a cyclic collection (measured: ~67 MB of one latency-bound paper run).
    import gc
    import weakref

    gc.disable()
    try:
        env = build(domain, shop_env())
        before = len(env.tools)
        env.close()
        assert before and not env.tools
        gone = weakref.ref(env)
        del env
        assert gone() is None
    finally:
        gc.enable()

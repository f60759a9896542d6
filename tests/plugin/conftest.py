"""Helpers for plugin tests: a pytester project with the tiny suite and a deterministic custom agent."""

from __future__ import annotations

import json

import pytest
from _paths import REPO_ROOT
from _suites import tiny_suite

# A user-supplied agent (the documented way to bring your own): orders the right noodles on even trial
# seeds and the popular wrong ones on odd seeds, so runs mix passes and failures deterministically.
AGENT_CONFTEST = '''
import pytest
from pytest_vitabench.messages import Message, ToolCall


class EvenOddAgent:
    def respond(self, setup, messages):
        done = [m for m in messages if m.role == "tool"]
        right = setup.seed % 2 == 0
        if not done:
            store, product = ("S2", "P2") if right else ("S1", "P1")
            return Message(role="assistant", tool_calls=[ToolCall(id="c1", name="create_delivery_order", arguments={
                "user_id": setup.user_profile["user_id"], "store_id": store, "product_ids": [product],
                "product_cnts": [1], "address": "No. 1 Test Road, Home", "dispatch_time": setup.time[:19]})])
        if len(done) == 1:
            order_id = __import__("json").loads(done[0].content)["order_id"]
            return Message(role="assistant", tool_calls=[ToolCall(id="c2", name="pay_delivery_order",
                                                                  arguments={"order_id": order_id})])
        return Message(role="assistant", content="Your order is placed and paid. ###STOP###")


@pytest.fixture(scope="session")
def vita_agent():
    return EvenOddAgent()
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest(AGENT_CONFTEST)
    (pytester.path / "tasks.json").write_text(json.dumps(tiny_suite()), encoding="utf-8")
    return pytester


@pytest.fixture
def demo(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project holding the demo suite as ``tasks.json``, with the plugin's built-in roles."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "tasks.json").write_bytes((REPO_ROOT / "suites" / "demo" / "tasks.json").read_bytes())
    return pytester

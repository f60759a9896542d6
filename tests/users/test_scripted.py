"""The scripted user simulator: verbatim first turn, identity, hidden intention, accept/reject, stop."""

from __future__ import annotations

import pytest

from pytest_vitabench.messages import STOP_TOKEN, Message, ToolCall
from pytest_vitabench.users import make_user_simulator
from pytest_vitabench.users.base import UserSetup, UserSimulator
from pytest_vitabench.users.scripted import ScriptedUser

GREETING = Message(role="assistant", content="Hello, how can I help you?")
PLAIN = UserSetup(instruction="Order me a coffee to my office for this morning.", user_id="U100001")
PROACTIVE = UserSetup(instruction="Book a table for my parents' anniversary dinner this weekend.", user_id="U100001",
                      user_intention="There will be 5 of us, this Saturday at 6:30 pm.", proactive=True)
CAPPED = UserSetup(instruction="Order me two lattes under 30 yuan.", user_id="U7")


def _reply(setup: UserSetup, *agent_texts: str) -> str:
    messages = [GREETING, Message(role="user", content=setup.instruction)]
    for text in agent_texts:
        messages.append(Message(role="assistant", content=text))
    answer = ScriptedUser().respond(setup, messages)
    assert isinstance(answer, Message) and answer.role == "user"
    return answer.text


def test_factory_and_protocol():
    user = make_user_simulator("scripted")
    assert isinstance(user, ScriptedUser) and isinstance(user, UserSimulator)
    with pytest.raises(ValueError, match="needs an LLM client"):
        make_user_simulator("gpt-4.1")


def test_first_turn_is_the_instruction_verbatim():
    assert ScriptedUser().respond(PLAIN, [GREETING]).text == PLAIN.instruction


def test_gives_the_user_id_only_when_asked():
    assert "U100001" in _reply(PLAIN, "Could you tell me your user ID?")
    assert "U100001" in _reply(PLAIN, "What's the phone number on your account?")
    assert "U100001" not in _reply(PLAIN, "Do you prefer hot or iced coffee?")


@pytest.mark.parametrize("question", [
    "How many people will be coming?",
    "Which day would suit you?",
    "What time should I book the table for?",
    "Are there any other details or requirements I should know about?",
    "Is this for Saturday or Sunday?",  # shares a word with the intention
])
def test_reveals_the_intention_to_a_related_question(question):
    assert _reply(PROACTIVE, question) == PROACTIVE.user_intention


@pytest.mark.parametrize("question", [
    "Do you have a favourite cuisine?",
    "Would you prefer a quiet place or a lively one?",
    "Could you tell me your user ID?",
])
def test_keeps_the_intention_for_unrelated_questions(question):
    assert PROACTIVE.user_intention not in _reply(PROACTIVE, question)


def test_never_reveals_preferences_and_has_no_intention_in_a_plain_subtask():
    assert _reply(PLAIN, "Which milk would you like in it?") == "Whatever you think is best."
    assert _reply(PLAIN, "How many cups do you need, and when?") == "Whatever you think is best."


def test_accepts_a_recommendation_that_keeps_the_explicit_conditions():
    text = _reply(CAPPED, "I recommend 2 x Oat Milk Latte at Brew Lab for 28 yuan. Shall I go ahead?")
    assert text == "Yes, please go ahead."


@pytest.mark.parametrize("recommendation", [
    "I recommend 2 x Whole Milk Latte at Corner Grind for 36 yuan. Shall I go ahead?",  # above the cap
    "I recommend 3 x Oat Milk Latte at Brew Lab for 28 yuan. Shall I go ahead?",  # wrong quantity
])
def test_rejects_a_recommendation_that_breaks_the_instruction_without_saying_why(recommendation):
    text = _reply(CAPPED, recommendation)
    assert text == "Hmm, that's not really what I asked for."
    assert "yuan" not in text and "30" not in text


def test_preference_based_choices_are_not_judged():
    # The user never knows its preferences: a whole milk latte is accepted as readily as an oat milk one.
    assert _reply(PLAIN, "I recommend a Whole Milk Latte at Corner Grind for 26 yuan. Shall I order it?") == \
        "Yes, please go ahead."


def test_acceptance_and_identity_combine():
    text = _reply(PLAIN, "I recommend a Flat White at Brew Lab. Shall I order it? Please confirm your user ID.")
    assert text.startswith("Yes, please go ahead.") and "U100001" in text


@pytest.mark.parametrize("done", [
    "Done: OT123 has been placed and paid (total 28 yuan). Is there anything else I can help you with?",
    "Your reservation R1 is confirmed for 5 people at 2025-06-14 18:30. Anything else?",
    "Payment successful, your hotel booking is confirmed.",
])
def test_stops_once_the_request_is_done(done):
    assert STOP_TOKEN in _reply(PLAIN, done)


def test_stops_when_the_agent_gives_up_or_only_asks_for_more():
    assert STOP_TOKEN in _reply(PLAIN, "Sorry, I could not find a suitable coffee shop.")
    assert STOP_TOKEN in _reply(PLAIN, "Is there anything else I can help you with?")


def test_does_not_stop_before_the_order_is_placed():
    for text in ("I recommend an Oat Milk Latte. Shall I place the order?", "Let me search for coffee shops.",
                 "Which shop would you like?"):
        assert STOP_TOKEN not in _reply(PLAIN, text)


def test_waits_for_the_payment_before_stopping():
    text = _reply(PLAIN, "Your order has been placed. Shall I pay for it now?")
    assert STOP_TOKEN not in text and text == "Yes, please go ahead."
    assert STOP_TOKEN not in _reply(PLAIN, "The room is booked. Would you like me to complete the payment?")


def test_sees_only_assistant_text_never_tool_traffic():
    messages = [
        GREETING, Message(role="user", content=PLAIN.instruction),
        Message(role="assistant", content="Which milk do you prefer?"),
        Message(role="assistant", tool_calls=[ToolCall(id="c1", name="pay_delivery_order",
                                                       arguments={"order_id": "OT1"})]),
        Message(role="tool", tool_call_id="c1", name="pay_delivery_order",
                content='{"status": "paid", "message": "Payment successful, placed and paid"}'),
    ]
    assert ScriptedUser().respond(PLAIN, messages).text == "Whatever you think is best."


def test_deterministic():
    first = [_reply(PROACTIVE, q) for q in ("How many people?", "Any preference?", "I recommend X. Shall I book?")]
    again = [_reply(PROACTIVE, q) for q in ("How many people?", "Any preference?", "I recommend X. Shall I book?")]
    assert first == again

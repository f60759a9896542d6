"""The ``scripted`` user simulator: deterministic, offline, following VitaBench 2.0's simulator's rules.

It sees only the agent's text messages (never tool calls or results) and the last one decides the reply:

* first turn: the instruction, verbatim;
* the agent says the request is done ("placed and paid", "is confirmed", ...) and is not asking about a
  payment still to make: thanks and ``###STOP###``;
  the agent gives up ("sorry, I can't ...") or only asks whether anything else is needed: ``###STOP###``;
* the agent asks for identity (user ID, account, phone): the user ID;
* the agent asks a question *related to the hidden* ``user_intention`` (proactive subtasks only): the
  intention, verbatim. Related means: the question shares a content word with the intention, or both
  are about the same kind of fact (how many people / which day / what time), or the question asks for
  details or requirements in general. Any other question gets a vague answer ("Whatever you think is
  best."), so preferences are never revealed;
* the agent recommends something concrete: accept, unless the recommendation states a price above a cap,
  a quantity or a clock time different from what the *instruction* explicitly says; then a brief
  dissatisfied reply that does not give the reason.

Several of these can combine in one reply (the user ID and an acceptance, say).
"""

from __future__ import annotations

import re

from ..messages import STOP_TOKEN, Message
from ..text.facts import extract_facts, parse_now
from ..text.words import content_words
from .base import UserSetup

DONE_REPLY = f"Great, thank you! That's all. {STOP_TOKEN}"
END_REPLY = f"Okay, never mind. {STOP_TOKEN}"
NOTHING_ELSE_REPLY = f"No, that's all, thanks. {STOP_TOKEN}"
ACCEPT_REPLY = "Yes, please go ahead."
REJECT_REPLY = "Hmm, that's not really what I asked for."
VAGUE_REPLY = "Whatever you think is best."
CONTINUE_REPLY = "Okay, please go ahead."

_DONE = re.compile(
    r"placed and paid|has been paid|been paid|payment (was |is )?successful|paid successfully|"
    r"\b(reservation|booking|order|table|room|ticket)s?\b[^.?!]*\b(is|are|has been|have been|was|were) "
    r"(now )?(confirmed|booked|reserved)\b|\ball set\b", re.I)
# "Booked; shall I pay now?" is not done yet: the user waits for the payment (tau2-bench PR #297).
_PAYMENT_PENDING = re.compile(r"\b(pay|payment)\b[^.!]*\?", re.I)
_GIVE_UP = re.compile(r"\b(sorry|unfortunately|apologi[sz]e)\b[^.?!]*\b(can ?not|can't|could ?not|couldn't|unable|"
                      r"no (suitable|available))\b", re.I)
_ANYTHING_ELSE = re.compile(r"\banything else\b", re.I)
_IDENTITY = re.compile(r"\b(user ?id|account|phone( number)?|member(ship)? (id|number)|identity|id number|your id)\b",
                       re.I)
_RECOMMEND = re.compile(r"\b(i recommend|i'd recommend|i suggest|i'd suggest|how about|i found|my recommendation|"
                        r"is that ok|does that work)\b", re.I)
# "Shall I ...?" proposes a concrete action unless it asks for a fact ("What time should I book?").
_PROPOSE = re.compile(r"\b(shall i|should i|do you want me to|would you like me to|can i|may i)\b[^.?!]*"
                      r"\b(go ahead|order|book|reserve|place|pay|proceed|confirm|make)\b", re.I)
_WH = re.compile(r"\b(what|which|when|where|how many|how much)\b", re.I)
_GENERAL_DETAILS = re.compile(r"\b(any (other )?details?|more details?|requirements?|anything (else )?i should know|"
                              r"specifics|more information|special requests?|tell me more)\b", re.I)
_ASK_COUNT = re.compile(r"\b(how many|number of|party size|headcount|people|guests|travell?ers|passengers|portions|"
                        r"cups|servings|for how many)\b", re.I)
_ASK_DATE = re.compile(r"\b(when|which day|what day|which date|what date|date|day)\b", re.I)
_ASK_TIME = re.compile(r"\b(when|what time|which time|time|hour)\b", re.I)
_HAS_COUNT = re.compile(r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b[^.?!]{0,20}"
                        r"\b(of us|people|persons|guests|travell?ers|passengers|adults|cups|portions|friends|"
                        r"colleagues)\b|\b(the|all) (two|three|four|five|six) of us\b", re.I)
_HAS_DATE = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tonight|tomorrow|"
                       r"weekend|next week|\d{4}-\d{2}-\d{2}|january|february|march|april|may|june|july|august|"
                       r"september|october|november|december)\b", re.I)
_HAS_TIME = re.compile(r"\b\d{1,2}(:\d{2})?\s*(am|pm)\b|\b\d{1,2}:\d{2}\b|\b(noon|morning|afternoon|evening)\b", re.I)
_PRICE = re.compile(r"(?:¥|rmb|cny)\s*(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s*(?:yuan|rmb|cny|元)", re.I)
_SMALL_WORDS = frozenset("the and for you your with what which when how this that there will would could can "
                         "like have need want know tell please some any are our from about".split())


class ScriptedUser:
    """A deterministic user simulator (see the module docstring for the rules)."""

    name = "scripted"

    def respond(self, setup: UserSetup, messages: list[Message]) -> Message:
        """The next user message: the instruction first, then a reply to the agent's last text."""
        if not any(m.role == "user" for m in messages):
            return _say(setup.instruction)
        last = next((m.text for m in reversed(messages)
                     if m.role == "assistant" and m.text.strip() and not m.tool_calls), None)
        if last is None:
            return _say(CONTINUE_REPLY)
        if STOP_TOKEN in last or (_DONE.search(last) and not _PAYMENT_PENDING.search(last)):
            return _say(DONE_REPLY)
        if _GIVE_UP.search(last):
            return _say(END_REPLY)
        question = "?" in last
        recommending = bool(_RECOMMEND.search(last)) or any(
            _PROPOSE.search(sentence) and not _WH.search(sentence) for sentence in re.split(r"(?<=[.?!])\s+", last))
        parts: list[str] = []
        if recommending:
            parts.append(ACCEPT_REPLY if self.acceptable(setup, last) else REJECT_REPLY)
        if question and _IDENTITY.search(last):
            parts.append(f"My user ID is {setup.user_id}.")
        if question and not recommending and self.related(setup, last):
            parts.append(setup.user_intention)
        if not parts and question and _ANYTHING_ELSE.search(last):
            return _say(NOTHING_ELSE_REPLY)
        if not parts:
            parts.append(VAGUE_REPLY if question else CONTINUE_REPLY)
        return _say(" ".join(parts))

    @staticmethod
    def related(setup: UserSetup, question: str) -> bool:
        """Whether a question is about the hidden ``user_intention`` (see the module docstring)."""
        intention = setup.user_intention.strip()
        if not intention:
            return False
        if _GENERAL_DETAILS.search(question):
            return True
        if _words(question) & _words(intention):
            return True
        return bool((_ASK_COUNT.search(question) and _HAS_COUNT.search(intention))
                    or (_ASK_DATE.search(question) and _HAS_DATE.search(intention))
                    or (_ASK_TIME.search(question) and _HAS_TIME.search(intention)))

    @staticmethod
    def acceptable(setup: UserSetup, recommendation: str) -> bool:
        """Judged against the instruction's explicit conditions only: price cap, quantity, clock time."""
        now = parse_now("")
        items = set(content_words(setup.instruction))
        wanted = extract_facts(setup.instruction, now, items)
        offered = extract_facts(recommendation, now, items)
        if wanted.max_price is not None:
            prices = [float(a or b) for a, b in _PRICE.findall(recommendation)]
            if any(price > wanted.max_price for price in prices):
                return False
        if wanted.count is not None and offered.count is not None and offered.count != wanted.count:
            return False
        if wanted.time is not None and offered.time is not None and offered.time != wanted.time:
            return False
        return True


def _say(text: str) -> Message:
    return Message(role="user", content=text)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in _SMALL_WORDS}

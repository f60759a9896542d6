"""The LLM user simulator (``--vita-user-model NAME``), with the official semantics (including the hidden
``user_intention`` of a proactive subtask, told only when the agent asks about it).

The first turn is the instruction verbatim, with no LLM call, except for a hidden scenario (converted VitaBench 1.0
tasks), from which the model writes the opening request. Later turns are one call with the role-flipped
conversation: the model never sees tool calls or tool results, nor the text of an agent message that calls tools (it
went to the environment, see :mod:`pytest_vitabench.run.episode`). ``wait_for_action`` is an opt-in fix of the
premature-stop fault (tau2-bench #182): a stop before any write tool has completed or been refused becomes a short
nudge, at most :data:`MAX_NUDGES` times per subtask.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..domains.base import WRITE_KINDS
from ..domains.tool_kinds import declared_kinds
from ..messages import USER_STOP_TOKENS, Message, Usage
from .base import UserSetup

if TYPE_CHECKING:
    from ..llm.client import LLMClient
    from ..official.source import OfficialSource

MAX_NUDGES = 2
_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.S | re.I)

NUDGE = {"en": "Please go ahead and take care of it for me.", "zh": "好的，请直接帮我办好吧。"}
FALLBACK_REPLY = {"en": "Okay.", "zh": "好的。"}

_PROMPT = {
    "en": """You are role-playing a customer who is chatting with the AI assistant of a life-service app (food delivery,
in-store services, travel). Stay in character as the person described below. You are the customer, never the
assistant: do not offer help, search, or explain how services work.

## Who you are
{persona}

## What you want
{request}

## How to talk
- Write one short line per turn, the way a real person types in a chat.
- Keep your request as vague as it is above; do not add details it does not contain.
- When the assistant asks about your preferences or tastes, answer vaguely ("anything is fine", "you decide",
  "I'm not sure"). Never volunteer preferences.
- When the assistant asks who you are (user ID, account, phone number), give your user ID: {user_id}.
- Accept or reject only after the assistant proposes something concrete, and judge it only against the explicit
  conditions of your request (such as size, quantity, date, time, price limit). If they are met, accept; do not
  judge choices that depend on taste. If one is not met, show brief dissatisfaction without saying why.
{proactive}{wait}- When your request has been taken care of (or the assistant makes clear it cannot be done), thank the
  assistant briefly and end that message with ###STOP###.""",
    "zh": """你在扮演一位顾客，正在和一款生活服务 App（外卖、到店服务、出行）的 AI 助手聊天。
请始终扮演下面描述的这个人。你是顾客，不是助手：不要主动提供帮助、搜索或解释服务如何运作。

## 你是谁
{persona}

## 你想要什么
{request}

## 说话方式
- 每轮只写简短的一句话，像真人在聊天软件里打字一样。
- 需求保持和上面一样模糊，不要补充里面没有的细节。
- 助手问你的偏好或口味时，含糊地回答（"都行"、"你看着办"、"不太确定"）。不要主动透露偏好。
- 助手问你的身份（用户 ID、账号、手机号）时，告诉它你的用户 ID：{user_id}。
- 只有在助手给出具体方案后才表示接受或拒绝，并且只依据你需求中的明确条件（如规格、数量、日期、时间、价格上限）来判断。
  条件都满足就接受，不要评判与口味相关的选择；有条件不满足时，简短地表示不满意，但不要说明原因。
{proactive}{wait}- 当你的需求已经办好（或助手明确表示无法办理）时，简短道谢，并在这条消息末尾加上 ###STOP###。""",
}

_REQUEST = "<instruction>\n{instruction}\n</instruction>"
_HIDDEN = {
    "en": ("<instruction>\n{instruction}\n</instruction>\nThis is your situation and goal; the assistant knows none "
           "of it. You speak first: open with a short, natural request in your own words, and give further "
           "details only when the assistant asks for them."),
    "zh": ("<instruction>\n{instruction}\n</instruction>\n这是你的处境和目标，助手对此一无所知。"
           "由你先开口：用自己的话简短自然地提出请求，其他细节等助手问到时再说。"),
}
_PROACTIVE = {
    "en": """- Your situation includes information you have not told the assistant yet:
  <proactive_info>{intention}</proactive_info>
  Tell it truthfully only when the assistant asks a question directly related to it; otherwise never mention it.
""",
    "zh": """- 你的情况中还有一些尚未告诉助手的信息：
  <proactive_info>{intention}</proactive_info>
  只有当助手问到与之直接相关的问题时才如实告诉它，否则绝不提起。
""",
}
_WAIT = {
    "en": ("- Do not end the conversation while the assistant is only proposing: wait until it confirms that what "
           "you asked for has been placed or booked, or tells you it cannot be done.\n"),
    "zh": "- 助手只是在提议时不要结束对话：要等它确认你要的已经下单或预订成功，或告诉你无法办理。\n",
}


def _lang(language: str) -> str:
    return language if language in _PROMPT else "en"


def render_persona(persona: dict[str, Any], language: str = "en") -> str:
    """``- key: value`` lines (lists joined, nested values as JSON)."""
    if not persona:
        return "-"
    joiner = "、" if language == "zh" else ", "
    lines = []
    for key, value in persona.items():
        if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
            text = joiner.join(map(str, value))
        elif isinstance(value, (dict, list)):
            text = json.dumps(value, ensure_ascii=False)
        else:
            text = str(value)
        lines.append(f"- {key}: {text}")
    return "\n".join(lines)


def user_system_prompt(setup: UserSetup, *, wait_for_action: bool = False) -> str:
    """The simulator's system prompt for one subtask."""
    language = _lang(setup.language)
    request = (_HIDDEN[language] if setup.scenario_is_hidden else _REQUEST).format(instruction=setup.instruction)
    intention = (setup.user_intention or "").strip()
    # As officially, the proactive section exists only when there is a hidden intention to reveal.
    proactive = _PROACTIVE[language].format(intention=intention) if intention else ""
    return _PROMPT[language].format(persona=render_persona(setup.persona, language), request=request,
                                    user_id=setup.user_id, proactive=proactive,
                                    wait=_WAIT[language] if wait_for_action else "")


def flip_roles(messages: list[Message]) -> list[dict[str, str]]:
    """The conversation from the simulator's side: agent text -> ``user``, own turns -> ``assistant``; tool
    results and agent messages that call tools are left out (their text went to the environment)."""
    out = []
    for message in messages:
        if message.role == "assistant" and not message.tool_calls and message.text.strip():
            out.append({"role": "user", "content": message.text})
        elif message.role == "user":
            out.append({"role": "assistant", "content": message.text})
    return out


def write_resolved(setup: UserSetup, messages: list[Message]) -> bool:
    """Whether some write tool call of the agent has a result yet: completed, or refused with an error. The
    write tools are the environment's state-changing ones (without a list, the built-in tools declared
    ``create`` or ``write``)."""
    names = {call.id: call.name for m in messages if m.role == "assistant" for call in m.tool_calls or []}
    writes = setup.write_tools or {name for name, kind in declared_kinds().items() if kind in WRITE_KINDS}
    return any(m.role == "tool" and (m.name or names.get(m.tool_call_id or "")) in writes for m in messages)


class LLMUser:
    """A user simulator backed by a chat model at an OpenAI-compatible endpoint.

    Args:
        language: Prompt language when the setup names none we know (the setup's language wins).
        wait_for_action: Enable the premature-stop guard (see the module docstring).
        official_source: The user's copy of the official harness: the system prompt is the official one and
            the conversation is flipped as officially (every agent message without tool calls, even an empty
            one). ``None``: our own wording.
    """

    name = "llm"

    def __init__(self, model: str, *, client: LLMClient, language: str = "en", wait_for_action: bool = False,
                 temperature: float = 0.0, params: dict[str, Any] | None = None,
                 official_source: OfficialSource | None = None):
        self.model = model
        self.client = client
        self.language = _lang(language)
        self.wait_for_action = wait_for_action
        self.params = {"temperature": temperature, **(params or {})}
        self.official_source = official_source

    def __repr__(self) -> str:
        return f"LLMUser(model={self.model!r}, wait_for_action={self.wait_for_action})"

    def respond(self, setup: UserSetup, messages: list[Message]) -> Message:
        """The next user message (see the module docstring).

        Raises:
            LLMError: The endpoint failed after its retries (an infrastructure error for the item).
        """
        # The official simulator's first turn of a subtask is its instruction, after a seeded history too.
        own_turns = messages[setup.history_length:] if self.official_source is not None else messages
        if not setup.scenario_is_hidden and not any(m.role == "user" for m in own_turns):
            return Message(role="user", content=setup.instruction)
        if setup.language not in _PROMPT:
            setup = replace(setup, language=self.language)
        chat = self._official_chat(setup, messages)
        if chat is None:
            chat = [{"role": "system", "content": user_system_prompt(setup, wait_for_action=self.wait_for_action)},
                    *flip_roles(messages)]
        usage = Usage()
        text = ""
        # An empty reply (a filtered or reasoning-only answer) is asked again once before a neutral reply.
        for _ in range(2):
            completion = self.client.complete("user", model=self.model, messages=chat, seed=setup.seed,
                                              **self.params)
            usage = usage + completion.usage
            text = _THINK.sub("", completion.text).strip()
            if text:
                break
        language = _lang(setup.language)
        if not text:
            text = FALLBACK_REPLY[language]
        if self.wait_for_action and any(t in text for t in USER_STOP_TOKENS) and not write_resolved(setup, messages):
            nudges = sum(1 for m in messages if m.role == "user" and m.text.endswith(NUDGE[language]))
            if nudges < MAX_NUDGES:
                for token in USER_STOP_TOKENS:
                    text = text.replace(token, "")
                text = f"{' '.join(text.split())} {NUDGE[language]}".strip()
        return Message(role="user", content=text, usage=usage)

    def _official_chat(self, setup: UserSetup, messages: list[Message]) -> list[dict[str, Any]] | None:
        """The official simulator's request messages, or ``None`` without an official source (or for a
        VitaBench 1.0 task, whose hidden scenario the official personalization user has no place for)."""
        if self.official_source is None or setup.scenario_is_hidden:
            return None
        from ..official.wording import wording_for

        wording = wording_for(self.official_source, _lang(setup.language))
        assert wording is not None
        system = wording.user_system_prompt(persona=setup.persona, instruction=setup.instruction,
                                            proactive=setup.proactive, intention=setup.user_intention)
        flipped = [{"role": "user", "content": m.content} if m.role == "assistant"
                   else {"role": "assistant", "content": m.content}
                   for m in messages if (m.role == "assistant" and not m.tool_calls) or m.role == "user"]
        return [{"role": "system", "content": system}, *flipped]

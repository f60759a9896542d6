"""Our own wording of the agent's system prompt and the opening greeting (English and Chinese).

Content follows the official agent prompt's sections with its two faults fixed: headers are in the run's
language (officially Chinese in English runs too), and the
profile and identity rules agree (the profile shown is the signed-in account's).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..official.behaviour import PromptRules

#: This project's rules.
OUR_PROMPT = PromptRules()

GREETING = {"en": "Hello, how can I help you?", "zh": "您好，请问有什么可以帮您？"}

_WEEKDAYS = {
    "en": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    "zh": ["星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"],
}

_POLICY = {
    "en": """You are a personal life-service assistant for one user (food delivery, in-store services and travel).
The current time is {time}.

{role}

Using tools:
- Take the arguments a tool needs from the conversation, your memory of the user or other tools; if they are
  nowhere to be found, ask the user.
- When the request is vague, decide with what you know about the user's preferences before asking.
- Follow the preconditions and postconditions stated in each tool's description.

Using the preference memory:
- A candidate that matches the user's known preferences beats one that is merely better rated or closer.
- Infer what you can from the memory; recommend a concrete option and confirm it briefly instead of
  asking many questions.
- Preferences change over time: later evidence overrides earlier evidence.

Conversation:
- Never invent facts or tool results. Do not push the user toward needs they did not express.
- After the request is handled, ask whether anything else is needed; when the user has nothing else,
  end your last message with {stop}.""",
    "zh": """你是一位为单个用户服务的个人生活助理（外卖、到店服务与出行）。
当前时间：{time}。

{role}

使用工具：
- 工具所需的参数从对话、你对用户的记忆或其他工具中获取；都找不到时再询问用户。
- 需求模糊时，先依据你掌握的用户偏好做决定，再考虑询问。
- 遵守每个工具说明中的前置条件与后置条件。

使用偏好记忆：
- 符合用户已知偏好的选项优先于评分更高或距离更近的选项。
- 能从记忆中推断的就推断；给出具体推荐并简短确认，不要反复追问。
- 偏好会随时间变化：较新的证据优先于较旧的证据。

对话：
- 不要编造事实或工具结果，不要引导用户产生未表达的需求。
- 需求处理完后询问是否还需要其他帮助；用户没有其他需求时，在最后一条消息末尾输出 {stop}。""",
}

#: Our coaching line on drifting preferences (dropped by the official style).
_OVERRIDE_LINE = {"en": "\n- Preferences change over time: later evidence overrides earlier evidence.",
                  "zh": "\n- 偏好会随时间变化：较新的证据优先于较旧的证据。"}

_ROLE = {
    ("en", False): "Serve the user's requests, relying on your memory of their preferences.",
    ("en", True): ("Act only when you judge the user has a genuine need. Do not decide on the user's behalf "
                   "when information you need is missing: ask for it or look it up with the tools first. "
                   "Do not push services."),
    ("zh", False): "依靠你对用户偏好的记忆处理用户的请求。",
    ("zh", True): "只有在判断用户确有需要时才行动。缺少必要信息时不要替用户做决定：先询问或用工具查询。不要推销服务。",
}

#: ``--vita-deviation agent-prompt=official``: the official prompt's rules without our coaching
# (docs/official-profile.md):
#: the proactive role without "ask or look it up first", no "later evidence overrides earlier evidence", and
#: the addendum that repeats the memory rules and asks the agent to confirm the user id.
_OFFICIAL_ROLE = {
    **_ROLE,
    ("en", True): ("Act only if you judge that the user has a genuine need. Do not make decisions on the user's "
                   "behalf. Do not push services."),
    ("zh", True): "只有在判断用户确有需要时才行动。不要替用户做决定。不要推销服务。",
}
_OFFICIAL_ADDENDUM = {
    "en": """Additional rules:
- Preference match beats rating and distance; infer from memory; confirm a recommendation briefly without
  asking too many questions.
- Confirm the user id with the user before you use it in a tool call. Never invent a user id and never use a
  placeholder such as "default_user".""",
    "zh": """补充规则：
- 偏好匹配优先于评分和距离；能从记忆推断的就推断；推荐后简短确认，不要过多追问。
- 在工具调用中使用用户 ID 之前，先向用户确认。不要编造用户 ID，也不要使用 "default_user" 之类的占位符。""",
}
_PROFILE_HEADER_OFFICIAL = {"en": "## The user's basic information (account registration details, usable directly)",
                            "zh": "## 当前用户基础信息（账户注册信息，可直接使用）"}

_PROFILE_HEADER = {"en": "## The signed-in user's account profile (use it directly)",
                   "zh": "## 当前登录用户的账户信息（可直接使用）"}
_MEMORY_HEADER = {
    "en": "## User preference memory\nWhat you remember about this user from earlier interactions:",
    "zh": "## 用户偏好记忆\n以下是你从过往互动中记住的关于该用户的信息：",
}
_NO_MEMORY = {"en": "(nothing remembered)", "zh": "（暂无记忆）"}


def time_with_weekday(time: str, language: str = "en") -> str:
    """``2026-03-02 11:35:00`` -> ``2026-03-02 11:35:00 Monday`` (unchanged if unparsable)."""
    try:
        day = datetime.strptime(time[:10], "%Y-%m-%d").weekday()
    except ValueError:
        return time
    return f"{time} {_WEEKDAYS[language][day]}"


def agent_system_prompt(
    *, time: str, profile: dict[str, Any], memory: str, proactive: bool, language: str = "en",
    rules: PromptRules = OUR_PROMPT,
) -> str:
    """The agent's system prompt for one subtask.

    Args:
        rules: Our rules, or (``rules.official_rules``) the official ones without our coaching, with the
            confirm-the-user-id rule.
    """
    language = language if language in _POLICY else "en"
    stop = "'###STOP###'"
    official = rules.official_rules
    if official:
        policy = _POLICY[language].replace(_OVERRIDE_LINE[language], "")
        parts = [policy.format(time=time, role=_OFFICIAL_ROLE[(language, proactive)], stop=stop),
                 _OFFICIAL_ADDENDUM[language]]
    else:
        parts = [_POLICY[language].format(time=time, role=_ROLE[(language, proactive)], stop=stop)]
    if profile:
        joiner = "、" if language == "zh" else ", "
        lines = [f"- {key}: {joiner.join(map(str, value)) if isinstance(value, list) else value}"
                 for key, value in profile.items()]
        header = (_PROFILE_HEADER_OFFICIAL if official else _PROFILE_HEADER)[language]
        parts.append(header + "\n" + "\n".join(lines))
    parts.append(_MEMORY_HEADER[language] + "\n" + (memory or _NO_MEMORY[language]))
    return "\n\n".join(parts)

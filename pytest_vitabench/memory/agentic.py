"""The ``agentic`` backend (VitaBench 2.0's ``rewrite``): an LLM keeps one consolidated preference memory.

Before each subtask with new interactions the memory model rewrites the whole memory from the current one
and the new records, within a token budget; ``read`` ignores the query. Unlike VitaBench 2.0, a
failed call is an infrastructure error of the item, not a silent fallback: only an empty answer falls back
to appending the new records (as officially), counted in :attr:`AgenticMemory.fallbacks`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..domains.base import Tool
from ..messages import Usage
from ..suite.schema import DailyRecord, EventRecord
from .base import EMPTY_MEMORY, MemoryContext
from .render import render_records
from .spec import Endpoint, MemoryOptions, MemorySpec, official_aliases
from .tokens import keep_last_tokens, tokenizer_name

if TYPE_CHECKING:
    from ..llm.client import LLMClient
    from .spec import HarnessWording

log = logging.getLogger("pytest_vitabench.memory")

#: VitaBench 2.0's budget (memory.yaml ``rewrite.max_tokens``).
DEFAULT_MAX_TOKENS = 4096
#: VitaBench 2.0's module whose tool descriptions the agent gets under the harness's own wording.
OFFICIAL_FILE = "memory/rewrite_memory.py"
#: Bump when the prompts change: it is part of the snapshot key, so old checkpoints are not reused.
PROMPT_VERSION = 2
_THINK = re.compile(r"<think>.*?</think>\s*", re.S)

#: The records come before the memory: they are the same in every trial of a subtask, while each trial's
#: memory has its own history, so the trials' rewrites share the records as a prompt prefix that a provider's
#: prompt cache serves (the memory itself would end that shared prefix at its first differing word).
_PROMPTS = {
    "en": {
        "system": ("You keep the long-term preference memory of one user for a personal service assistant "
                   "that orders food, books in-store services and arranges travel. You answer with the "
                   "updated memory only."),
        "empty": "(empty: nothing is recorded yet)",
        "user": """New records since the last update (dated behaviour logs and conversations; some are noise, \
some concern other people):
{records}

Current memory:
{memory}

Write the complete updated memory.
- Keep every preference that is still valid.
- When a new record contradicts a stored preference, replace it with the newer one.
- Add new lasting preferences: likes, dislikes, restrictions, brands, dishes, price ranges, rating floors, \
times, places, service habits. Skip one-off noise and browsing; an order for someone else is not the \
user's own taste (note it under Other only if it is a standing habit, saying for whom).
- Use these headings, each with short bullet points: Food, Spending, Time, Location, Service, Other.
- Stay within about {budget} tokens. Give the memory only, no commentary.""",
    },
    "zh": {
        "system": ("你负责为一位用户维护长期偏好记忆，供点外卖、预订到店服务和安排出行的个人服务助手使用。"
                   "只输出更新后的记忆。"),
        "empty": "（空：尚无记录）",
        "user": """上次更新以来的新记录（带日期的行为日志和对话；其中有噪声，也有与他人相关的内容）：
{records}

当前记忆：
{memory}

请写出完整的更新后记忆。
- 保留所有仍然有效的偏好。
- 新记录与已有偏好矛盾时，用较新的偏好替换。
- 补充新的稳定偏好：喜欢、不喜欢、忌口、品牌、菜品、价格区间、评分下限、时间、地点、服务习惯。忽略偶发噪声和浏览记录；\
替他人下的单不代表用户本人口味（若是固定习惯，可写在“其他”下并注明对象）。
- 按以下标题组织，每项用简短要点：饮食、消费、时间、地点、服务、其他。
- 控制在约 {budget} 个 token 以内。只输出记忆本身，不要解释。""",
    },
}


class AgenticMemory:
    """One LLM-maintained preference memory per user (and trial).

    Args:
        llm_client: The run's LLM client (role ``memory``).
        memory_model: The model that rewrites the memory.
        max_tokens: The memory's token budget, also the call's ``max_tokens``.
        language: ``en`` or ``zh``: the prompt language.
        params: Further request settings (``--vita-model-args memory``, the models.yaml entry); over the budget
            and temperature 0 (VitaBench 2.0's configuration), key by key (``None`` leaves a key out).

    Attributes:
        text: The current memory ("" before the first update).
        usage: Tokens and cost of the rewrites so far.
        fallbacks: Updates whose answer was empty, so the new records were appended as they are.
    """

    def __init__(self, *, llm_client: LLMClient, memory_model: str, max_tokens: int = DEFAULT_MAX_TOKENS,
                 language: str = "en", wording: HarnessWording | None = None,
                 params: dict[str, Any] | None = None):
        self.client = llm_client
        self.model = memory_model
        self.max_tokens = max_tokens
        self.language = language if language in _PROMPTS else "en"
        self.params = dict(params or {})
        self.text = ""
        self.usage = Usage()
        self.fallbacks = 0
        #: The harness's own wording of the update request, the records and the empty memory (``None``: ours).
        self.wording = wording

    def messages(self, records_text: str) -> list[dict[str, str]]:
        """The chat messages of one rewrite."""
        if self.wording is not None:
            return self.wording.memory_update_messages(current=self.text, records=records_text,
                                                       max_tokens=self.max_tokens)
        return rewrite_messages(current=self.text, records=records_text, budget=self.max_tokens,
                                language=self.language)

    def request_settings(self) -> dict[str, Any]:
        """The rewrite request's settings: the budget as ``max_tokens``, the temperature, then ``params``."""
        return {"max_tokens": self.max_tokens, "temperature": 0.0, **self.params}

    def update(self, records: list[DailyRecord | EventRecord], context: MemoryContext) -> None:
        records_text = self.wording.render_records(records) if self.wording else render_records(records)
        if not records_text:
            return
        completion = self.client.complete("memory", model=self.model, messages=self.messages(records_text),
                                          seed=context.seed, **self.request_settings())
        self.usage = self.usage + completion.usage
        text = _THINK.sub("", completion.text).strip()
        if text:
            self.text = text
            return
        # An empty answer loses nothing only if the records are kept: append them (VitaBench 2.0's fallback).
        self.fallbacks += 1
        log.warning("memory model %s returned an empty memory for %s/%s; appending the new records instead",
                    self.model, context.user_id, context.subtask_id)
        merged = f"{self.text}\n{records_text}" if self.text else records_text
        self.text = keep_last_tokens(merged, self.max_tokens)

    def read(self, query: str | None = None) -> str:
        return self.text or (self.wording.rewrite_memory_empty() if self.wording else EMPTY_MEMORY)

    def tools(self) -> list[Tool]:
        tools = preference_tools(read_fn=lambda: self.read(), query_fn=self.read)
        return self.wording.memory_tools(tools, OFFICIAL_FILE) if self.wording else tools

    def state(self) -> dict[str, Any]:
        return {"text": self.text, "fallbacks": self.fallbacks}

    def load_state(self, state: dict[str, Any]) -> None:
        self.text = str(state.get("text", ""))
        self.fallbacks = int(state.get("fallbacks", 0))

    def fingerprint(self) -> dict[str, Any]:
        return {"model": self.model, "endpoint": getattr(self.client, "endpoint", None),
                "max_tokens": self.max_tokens, "language": self.language, **self.request_settings(),
                "prompt": PROMPT_VERSION, "tokenizer": tokenizer_name(),
                **({"official_wording": self.wording.source.version} if self.wording else {})}


def rewrite_messages(*, current: str, records: str, budget: int, language: str = "en") -> list[dict[str, str]]:
    """The chat messages of one rewrite in this project's wording (``current``: "" before the first update)."""
    prompts = _PROMPTS[language if language in _PROMPTS else "en"]
    user = prompts["user"].format(memory=current or prompts["empty"], records=records, budget=budget)
    return [{"role": "system", "content": prompts["system"]}, {"role": "user", "content": user}]


def preference_tools(*, read_fn: Callable[[], str], query_fn: Callable[[str], str]) -> list[Tool]:
    """The memory tools of VitaBench 2.0, with English descriptions: ``read_preference_memory`` calls
    ``read_fn()``, ``query_preference_memory`` calls ``query_fn(query)``."""
    return [Tool(
        name="read_preference_memory",
        description=("Read the user's long-term preference memory (what is known about their tastes, "
                     "restrictions, budgets, times, places and service habits from earlier interactions)."),
        parameters={"type": "object", "properties": {}, "required": []},
        fn=read_fn,
    ), Tool(
        name="query_preference_memory",
        description=("Search the user's preference memory for what is relevant to a question, e.g. "
                     "'coffee preferences' or 'hotel room requirements'."),
        parameters={"type": "object",
                    "properties": {"query": {"type": "string", "description": "What to look up in the user's memory."}},
                    "required": ["query"]},
        fn=lambda query: query_fn(str(query)),
    )]


def build(options: MemoryOptions, *, who: str = "the agentic memory") -> Callable[[], AgenticMemory]:
    """The agentic memory's factory (``who`` names the backend in errors: also rag's summary).

    Raises:
        ValueError: No memory model, or no LLM client for it.
    """
    model, client = options.memory_model, options.llm_client
    if not model:
        raise ValueError(f"{who} needs an LLM: set --vita-memory-model NAME (it defaults to the agent's "
                         f"--vita-model only when that is an LLM, not an offline built-in such as 'reference') "
                         f"and --vita-base-url for its endpoint")
    if client is None:
        raise ValueError(f"{who} needs an LLM client for the memory model {model!r}: set --vita-base-url "
                         f"(or $OPENAI_BASE_URL) and the key variable named by --vita-api-key-env")
    wording, params = options.wording(), dict(options.memory_model_args)
    return lambda: AgenticMemory(llm_client=client, memory_model=str(model), max_tokens=DEFAULT_MAX_TOKENS,
                                 language=options.language or "en", wording=wording, params=params)


def _endpoints(config: Any) -> list[Endpoint]:
    return [Endpoint("memory", "chat", config.memory_model, config.base_url)] if config.memory_model else []


SPEC = MemorySpec(name="agentic", aliases=official_aliases("agentic"), build=build, deterministic=False,
                  calls_llm=lambda config: bool(config.memory_model), endpoints=_endpoints,
                  prompt_budget=lambda options: DEFAULT_MAX_TOKENS, rewrites=True,
                  counts_tokens=True, leaderboard=True, pivot=2, request_role="memory",
                  switches=("memory_model_args",), official_file=OFFICIAL_FILE)

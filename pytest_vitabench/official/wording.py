"""Requests in the official harness's wording, composed from the user's copy of it (``--vita-official-source``).

The composition (what goes where, in which order, how a profile or a history record becomes a line) is
re-implemented here from reading the official harness; every word of its text is read at run time from an
:class:`~pytest_vitabench.official.source.OfficialSource`: prompt files for the policies, its code (parsed,
never run) for the headers and labels it writes inline.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..suite.schema import DailyRecord, DialogueTurn, EventRecord
from .source import DOMAINS, LANGUAGE_KEYS, OfficialSource
from .tool_schemas import official_tool_schemas

if TYPE_CHECKING:
    from ..domains.base import Tool

_AGENT = "agent/personalization_agent.py"
_RECORDS = "memory/rewrite_memory.py"
_JUDGE = "evaluator/evaluator_traj.py"
_ORCHESTRATOR = "orchestrator/orchestrator.py"
_GROUNDTRUTH = "memory/groundtruth_memory.py"
_RAG = "memory/rag_memory.py"


@dataclass(frozen=True)
class OfficialWording:
    """The official text of one run's requests, in one language.

    Attributes:
        source: Where the text is read from.
        language: ``en`` or ``zh``.
    """

    source: OfficialSource
    language: str

    def agent_system_prompt(self, *, time: str, profile: dict[str, Any], memory: str, proactive: bool) -> str:
        """The agent's system prompt for one subtask, as the official personalization agent builds it.

        Args:
            time: The subtask's clock with its weekday (``2022-03-07 15:50:00 Monday``).
            profile: The user's profile (``user_profile``), in the data's key order.
            memory: What the memory backend returns for the subtask's instruction.
            proactive: A proactive subtask (its own policy template).
        """
        name = "personalization_agent_proactive_system_prompt" if proactive else "personalization_agent_system_prompt"
        policy = (self.source.prompt(name, self.language) + "\n\n"
                  + self.source.prompt("personalization_agent_addendum", self.language))
        profile_section = ""
        if profile:
            lines = [f"- {key}: {'、'.join(str(v) for v in value) if isinstance(value, list) else value}"
                     for key, value in profile.items()]
            profile_section = self.source.code_template(_AGENT, "system_prompt", ("profile_text",)).format(
                profile_text="\n".join(lines))
        whole = self.source.code_template(_AGENT, "system_prompt", ("base_prompt", "profile_section", "memory_content"))
        return whole.format(base_prompt=policy.format(time=time), profile_section=profile_section,
                            memory_content=memory)

    def greeting(self) -> str:
        """The agent's fixed opening line (the official orchestrator's first message), in this language."""
        return self.source.code_choice(_ORCHESTRATOR, "get_default_first_agent_message", "content",
                                       LANGUAGE_KEYS[self.language])

    def tool_schemas(self, domain: str, ours: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The agent's tools for a subtask of ``domain``: the official schemas of the tools our environment has,
        in the official order, then ours that have no official counterpart (a memory backend's tools).

        A merged domain (``delivery,ota``) keeps our schemas: the official personalization runs have none.
        """
        if "," in domain:
            return ours
        names = {tool["function"]["name"] for tool in ours}
        official = [tool for tool in official_tool_schemas(self.source, domain, self.language)
                    if tool["function"]["name"] in names]
        offered = {tool["function"]["name"] for tool in official}
        return official + [tool for tool in ours if tool["function"]["name"] not in offered]

    def render_preferences(self, preferences: dict[str, Any] | None) -> str:
        """Ground-truth preferences as the official groundtruth memory shows them (its ``current`` tags under
        a heading, one bracketed line per category); with none, its fallback text."""
        current: Any = preferences or {}
        if isinstance(current, dict) and "current" in current:
            current = current["current"]
        lines = []
        if isinstance(current, dict):
            category_line = self.source.code_template(_GROUNDTRUTH, "read", ("category",))
            tag_line = self.source.code_template(_GROUNDTRUTH, "read", ("tag",))
            category_text = self.source.code_template(_GROUNDTRUTH, "read", ("category", "tags"))
            for category, tags in current.items():
                if isinstance(tags, list) and tags:
                    lines.append(category_line.format(category=category))
                    lines += [tag_line.format(tag=tag) for tag in tags]
                elif isinstance(tags, str) and tags:
                    lines.append(category_text.format(category=category, tags=tags))
        elif current:
            lines.append(json.dumps(current, ensure_ascii=False, indent=2))
        if not lines:
            return self.source.code_returned(_GROUNDTRUTH, "read")
        return self.source.code_heading(_GROUNDTRUTH, "read") + "\n".join(lines)

    # -- the agentic (rewrite) memory -------------------------------------------------------------------

    def memory_update_messages(self, *, current: str, records: str, max_tokens: int) -> list[dict[str, str]]:
        """The official rewrite memory's update request: its fixed system message, the update prompt with the
        current memory (or the official placeholder) and the new records, and the output budget sentence."""
        system = self.source.code_constant(_RECORDS, "update", "content")
        empty = self.source.code_fallback(_RECORDS, "update", "current_memory")
        user = self.source.prompt("memory_update_prompt", self.language).format(
            current_memory=current or empty, new_interactions=records)
        budget = self.source.code_branch_template(_RECORDS, "update", ("max_tokens",), LANGUAGE_KEYS[self.language])
        return [{"role": "system", "content": system},
                {"role": "user", "content": user + budget.format(max_tokens=max_tokens)}]

    def rewrite_memory_empty(self) -> str:
        """What the official rewrite memory reads as before its first update."""
        return self.source.code_returned(_RECORDS, "read")

    def memory_tool_description(self, name: str, file: str = _RECORDS) -> str:
        """A memory tool's description as the official schema builder gives it: its docstring's first line,
        then the rest after a blank line (``file``: the official backend module documenting it, as each
        backend documents its tools apart)."""
        first, _, rest = self.source.code_docstring(file, name).partition("\n")
        rest = rest.strip()
        return f"{first}\n\n{rest}" if rest else first

    def memory_tools(self, tools: list[Tool], file: str = _RECORDS) -> list[Tool]:
        """``tools`` with the official descriptions (of the tools of the official module ``file``, as each backend
        documents them apart) and parameter schemas (no argument descriptions, as the official builder renders a
        signature without documented arguments)."""
        out = []
        for tool in tools:
            properties = {name: {"title": name.replace("_", " ").title(), "type": prop.get("type", "string")}
                          for name, prop in (tool.parameters.get("properties") or {}).items()}
            parameters: dict[str, Any] = {"properties": properties, "title": "parameters", "type": "object"}
            if tool.parameters.get("required"):
                parameters["required"] = list(tool.parameters["required"])
            description = self.memory_tool_description(tool.name, file)
            out.append(replace(tool, description=description, parameters=parameters))
        return out

    def render_records(self, records: Sequence[DailyRecord | EventRecord]) -> str:
        """History records as the official memory backends render them: one line per behaviour, a day's
        dialogue as one JSON line, each with the official (Chinese) type label."""
        labels = self.source.code_literal(_RECORDS, "_format_interactions", "type_labels")
        dialogue_line = self.source.code_template(_RECORDS, "_format_interactions", ("date", "dialogue_str"))
        lines = []
        for record in records:
            if isinstance(record, EventRecord):
                content = record.content
                text = (json.dumps(content, ensure_ascii=False, indent=2) if isinstance(content, (dict, list))
                        else str(content))
                lines.append(f"- [{record.timestamp}] [{labels.get(record.type, record.type)}] {text}")
                continue
            for event in record.behavior:
                content = event.content if event.content is not None else {}
                text = json.dumps(content, ensure_ascii=False) if isinstance(content, (dict, list)) else str(content)
                lines.append(f"- [{record.date}] [{labels.get(event.behavior_type, event.behavior_type)}] {text}")
            if record.dialogue:
                turns = [turn.model_dump() for turn in record.dialogue]
                lines.append(dialogue_line.format(date=record.date,
                                                  dialogue_str=json.dumps(turns, ensure_ascii=False)))
        return "\n".join(lines)

    # -- the rag memory ---------------------------------------------------------------------------------

    def rag_daily_label(self) -> str:
        """The type the official rag gives a chunk of a day's record (an event record keeps its own type)."""
        return self.source.code_dict_value(_RAG, "_interaction_to_chunk", "type")

    def rag_summary_messages(self, chunks: Sequence[tuple[str, str, str]]) -> list[dict[str, str]]:
        """The official rag's summary request over every stored ``(timestamp, type, text)`` chunk."""
        line = self.source.code_template(_RAG, "_generate_summary", ("timestamp", "type", "text"))
        user = self.source.code_template(_RAG, "_generate_summary", ("all_chunks_text",))
        text = "\n".join(line.format(timestamp=t, type=k, text=x) for t, k, x in chunks)
        return [{"role": "system", "content": self.source.code_constant(_RAG, "_generate_summary", "content")},
                {"role": "user", "content": user.format(all_chunks_text=text)}]

    def rag_listing(self, function: str, chunks: Sequence[tuple[str, str, str]]) -> str:
        """``(timestamp, type, text)`` chunks as the official rag's ``function`` lists them: ``read`` (the chunks
        retrieved for the subtask), ``_build_summary`` (every chunk) or ``query_preference_memory`` (the tool's
        answer, no heading)."""
        line = self.source.code_template(_RAG, function, ("timestamp", "type", "text"))
        body = "\n".join(line.format(timestamp=t, type=k, text=x) for t, k, x in chunks)
        return body if function == "query_preference_memory" else self.source.code_heading(_RAG, function) + body

    def rag_empty(self, function: str) -> str:
        """What the official rag's ``function`` (``read``, ``_build_summary``, ``query_preference_memory``)
        answers with no chunk stored."""
        return self.source.code_returned(_RAG, function)

    # -- the user simulator ---------------------------------------------------------------------------

    def user_system_prompt(self, *, persona: dict[str, Any], instruction: str, proactive: bool,
                           intention: str) -> str:
        """The official personalization user's system prompt for one subtask.

        Args:
            persona: The user's profile, shown as the official simulator shows it (the dict's ``str``).
            instruction: The subtask's instruction.
            proactive: A proactive subtask: only then, and only with an intention, the proactive section.
            intention: The hidden ``user_intention``.
        """
        section = ""
        if proactive and intention:
            section = self.source.prompt("personalization_user_proactive_section", self.language).format(
                proactive_info=intention) + "\n"
        return self.source.prompt("personalization_user_system_prompt", self.language).format(
            persona=str(persona), instruction=instruction, proactive_section=section)

    # -- the sliding-window judge ---------------------------------------------------------------------

    def rubric_id(self, position: int) -> str:
        """The official id of the rubric at 0-based ``position``."""
        return f"rubric_{position}"

    def initial_justification(self) -> str:
        """What a rubric's justification says before any window judged it."""
        return self.source.code_dict_value(_JUDGE, "_initialize_rubric_states", "justification")

    def judge_messages(self, *, time: str, instruction: str, transcript: str, rubrics: str,
                       window: tuple[int, int] | None = None) -> list[dict[str, Any]]:
        """The system and user messages of one official judge call.

        Args:
            time: The subtask's clock with its weekday.
            instruction: The user's instruction.
            transcript: The messages judged, as :meth:`judge_transcript` renders them.
            rubrics: The rubric states as :meth:`judge_rubrics` renders them.
            window: A sliding window's 1-based number and how many there are; ``None``: the full-trajectory
                judge's one call over every message (the official ``trajectory_full_traj_rubric`` evaluation).
        """
        # The official system information block is a dict's repr: the judge never sees the database.
        env_info = {"system_time": time, "database": []}
        if window is None:
            system = self.source.prompt("full_trajectory_eval_template", self.language).format(
                env_info=env_info, user_instruction=instruction)
            function, content = "_evaluate_trajectory", "trajectory_content"
        else:
            system = self.source.prompt("sliding_window_eval_template", self.language).format(
                env_info=env_info, user_instruction=instruction, window_idx=window[0], total_windows=window[1])
            function, content = "_evaluate_window", "window_content"
        user = self.source.code_template(_JUDGE, function, (content, "current_rubrics_str"))
        return [{"role": "system", "content": system},
                {"role": "user", "content": user.format(**{content: transcript}, current_rubrics_str=rubrics)}]

    @staticmethod
    def judge_rubrics(states: Sequence[tuple[str, str, str, bool]]) -> str:
        """``(id, rubric, justification, met)`` states as the official judge shows them (indented JSON)."""
        return json.dumps([{"rubric_idx": i, "rubric": r, "justification": j, "meetExpectation": m}
                           for i, r, j, m in states], ensure_ascii=False, indent=2)

    @staticmethod
    def judge_transcript(messages: Sequence[Any], start: int, end: int) -> str:
        """Messages ``start:end`` as ``[n] role: content`` lines, numbered globally from 1; tool calls as
        ``name(key=repr)`` joined by ``.`` after the content; messages with nothing to show left out."""
        lines = []
        for number, message in enumerate(messages[start:end], start + 1):
            content = message.content or ""
            if message.role == "assistant" and message.tool_calls:
                calls = []
                for call in message.tool_calls:
                    arguments = call.arguments
                    shown = (", ".join(f"{k}={v!r}" for k, v in arguments.items()) if isinstance(arguments, dict)
                             else str(arguments))
                    calls.append(f"{call.name}({shown})")
                content = f"{content} {'.'.join(calls)}" if content else ".".join(calls)
            if content:
                lines.append(f"[{number}] {message.role}: {content}")
        return "\n".join(lines)


def check_wording(source: OfficialSource) -> None:
    """Read every piece of official text the requests use, in both languages, so that a copy of the harness
    that lacks one fails before any item runs (naming the file and what is missing).

    Raises:
        OfficialSourceError: A piece cannot be read.
    """
    for language in LANGUAGE_KEYS:
        wording = OfficialWording(source, language)
        wording.agent_system_prompt(time="", profile={"k": "v"}, memory="", proactive=False)
        wording.agent_system_prompt(time="", profile={}, memory="", proactive=True)
        wording.render_records([EventRecord(type="search", timestamp="", content={}),
                                DailyRecord(date="", dialogue=[DialogueTurn(role="user", content="")])])
        wording.render_preferences({"current": {"c": ["t"], "d": "s"}})
        wording.render_preferences(None)
        wording.greeting()
        wording.user_system_prompt(persona={}, instruction="", proactive=True, intention="x")
        wording.initial_justification()
        wording.judge_messages(time="", instruction="", transcript="", rubrics="", window=(1, 1))
        wording.judge_messages(time="", instruction="", transcript="", rubrics="")
        wording.memory_update_messages(current="", records="", max_tokens=1)
        wording.rewrite_memory_empty()
        for name in ("read_preference_memory", "query_preference_memory"):
            wording.memory_tool_description(name)
            wording.memory_tool_description(name, _RAG)
        wording.rag_daily_label()
        wording.rag_summary_messages([("", "", "")])
        for function in ("read", "_build_summary", "query_preference_memory"):
            wording.rag_listing(function, [("", "", "")])
            wording.rag_empty(function)
        for domain in DOMAINS:
            official_tool_schemas(source, domain, language)


def wording_for(source: OfficialSource | None, language: str) -> OfficialWording | None:
    """The official wording in ``language``, or ``None`` when the run uses our own."""
    return OfficialWording(source, language if language in ("en", "zh") else "en") if source else None

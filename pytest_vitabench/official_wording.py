"""Requests in the official harness's wording, composed from the user's copy of it (``--vita-official-source``).

The composition (what goes where, in which order, how a profile or a history record becomes a line) is
re-implemented here from reading the official harness; every word of its text is read at run time from an
:class:`~pytest_vitabench.official_source.OfficialSource`: prompt files for the policies, its code (parsed,
never run) for the headers and labels it writes inline.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .official_source import OfficialSource
from .suite.schema import DailyRecord, EventRecord

_AGENT = "agent/personalization_agent.py"
_RECORDS = "memory/rewrite_memory.py"


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


def wording_for(source: OfficialSource | None, language: str) -> OfficialWording | None:
    """The official wording in ``language``, or ``None`` when the run uses our own."""
    return OfficialWording(source, language if language in ("en", "zh") else "en") if source else None

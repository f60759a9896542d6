"""A stand-in for a copy of the official harness, in our own words, for tests of ``--vita-official-source``.

It has the layout and the code shapes the plugin reads (prompt files, the literal description tables, and the
functions whose f-strings, labels and docstrings carry wording), with text written here, so tests of finding,
reading and composing need neither ``../shared`` nor the official text.
"""

from __future__ import annotations

from pathlib import Path

from pytest_vitabench.official.messages import TOOL_FILES
from pytest_vitabench.official.source import DOMAINS, PROMPTS

#: The fields each prompt is formatted with.
PLACEHOLDERS = {
    "personalization_agent_system_prompt": "policy at {time}",
    "personalization_agent_proactive_system_prompt": "proactive policy at {time}",
    "personalization_user_system_prompt": "persona {persona}; request {instruction}; {proactive_section}end",
    "personalization_user_proactive_section": "hidden: {proactive_info}",
    "sliding_window_eval_template": "judge {env_info} {user_instruction} {window_idx}/{total_windows}",
    "full_trajectory_eval_template": "full judge {env_info} {user_instruction}",
    "memory_update_prompt": "memory {current_memory} / {new_interactions}",
}

#: A tools_schema.py that would leave a mark if it were ever executed.
TOOLS_SCHEMA = '''"""Stand-in tool descriptions."""
import pathlib
pathlib.Path(__file__).with_name("EXECUTED").write_text("ran")
raise SystemExit("tools_schema.py must be parsed, never executed")

TOOL_DESCRIPTIONS_ZH = {"find_things": {"description": "找东西", "preconditions": "有关键词", "postconditions": "列表",
                                        "args": {"keywords": "关键词"}, "returns": "东西"}}
TOOL_DESCRIPTIONS_EN: dict = {"find_things": {"description": "Find things", "preconditions": "some words",
                                              "postconditions": "a list", "args": {"keywords": "words"},
                                              "returns": "things"}}
'''

TOOLS = '''from typing import List, Optional
from vita.environment.toolkit import ToolKitBase, ToolType, is_tool
raise SystemExit("never executed")


class StandInTools(ToolKitBase):
    @is_tool(ToolType.READ)
    def find_things(self, keywords: List[str]) -> str:
        return ""

    def helper(self) -> None:
        pass
'''

CODE = {
    "environment/toolkit.py": '''from typing import Optional
class ToolKitBase:
    @is_tool(ToolType.GENERIC)
    def weather(self, address: str, day: Optional[str] = None) -> str:
        return ""
''',
    "environment/toolkit_schema.py": '''TOOLKIT_TOOL_DESCRIPTIONS_ZH = {"weather": {
    "description": "天气", "preconditions": "地址", "postconditions": "预报", "args": {"address": "地址"},
    "returns": "预报"}}
TOOLKIT_TOOL_DESCRIPTIONS_EN = {"weather": {"description": "Weather", "preconditions": "an address",
    "postconditions": "a forecast", "args": {"address": "where"}, "returns": "forecast"}}
''',
    "utils/schema_utils.py": '''def generate_tool_docstring(domain, tool_name, language=None):
    parts = []
    parts.append(desc)
    parts.append("Before:")
    parts.append(f"    - {pre}")
    parts.append("After:")
    parts.append("")
    parts.append("Arguments:")
    parts.append("")
    parts.append("Gives:")
''',
    "agent/personalization_agent.py": '''class Agent:
    def system_prompt(self):
        profile_section = ""
        if profile_text:
            profile_section = (
                "\\n\\n## Account\\n"
                f"{profile_text}"
            )
        return f"{base_prompt}{profile_section}\\n\\n## Memory\\n{memory_content}"
''',
    "memory/rewrite_memory.py": '''class Rewrite:
    def read(self, query=None):
        if not self._memory_text:
            return "NOTHING YET"
        return self._memory_text

    def update(self, new_interactions, llm=None, llm_args=None):
        user_content = prompt.format(current_memory=self._memory_text or "EMPTY", new_interactions=text)
        if self.language == "english":
            user_content += f"\\n\\n(budget {self.max_tokens})"
        else:
            user_content += f"\\n\\n（预算 {self.max_tokens}）"
        messages = [SystemMessage(role="system", content="SYSTEM"), UserMessage(role="user", content=user_content)]

    def read_preference_memory(self) -> str:
        """Read it all."""

    def query_preference_memory(self, query: str) -> str:
        """Ask it.

        More words.
        """

    @staticmethod
    def _format_interactions(interactions):
        type_labels = {"search": "SEARCH"}
        lines.append(f"- [{date}] [{label}] {content_str}")
        lines.append(f"- [{date}] [TALK] {dialogue_str}")
''',
    "memory/rag_memory.py": '''class Rag:
    def read(self, query=None):
        if not self._chunks:
            return "RAG EMPTY"
        lines = [f"* {c['timestamp']} | {c['type']} | {c['text']}" for _, c in top]
        return "FOUND:\\n" + "\\n".join(lines)

    def read_preference_memory(self) -> str:
        """Read the retrieved memory."""

    def query_preference_memory(self, query: str) -> str:
        """Ask the vectors."""
        if not self._chunks:
            return "RAG NOTHING"
        lines = [f"> {c['timestamp']} {c['type']} {c['text']}" for _, c in scored]
        return "\\n".join(lines)

    def _interaction_to_chunk(interaction):
        return {"text": text, "keywords": keywords, "timestamp": date, "type": "DAY"}

    def _build_summary(self):
        if not self._chunks:
            return "RAG NONE"
        lines = [f"+ {c['timestamp']} {c['type']} {c['text']}" for c in self._chunks]
        return "ALL:\\n" + "\\n".join(lines)

    def _generate_summary(self, llm, llm_args=None):
        all_chunks_text = "\\n".join(f"{c['timestamp']}/{c['type']}/{c['text']}" for c in self._chunks)
        messages = [SystemMessage(role="system", content="SUMMARISE"),
                    UserMessage(role="user", content=(f"Records:\\n" f"{all_chunks_text}" f"\\nEnd."))]
''',
    "memory/groundtruth_memory.py": '''class Truth:
    def read(self, query=None):
        pref_lines.append(f"<{category}>")
        pref_lines.append(f"    * {tag}")
        pref_lines.append(f"<{category}>{tags}")
        sections.append("## TAGS\\n" + "\\n".join(pref_lines))
        if not sections:
            return "NO PREFS"
        return "\\n\\n".join(sections)
''',
    "evaluator/evaluator_traj.py": '''class Judge:
    def _initialize_rubric_states(cls, criteria):
        states[key] = {"rubric": rubric, "justification": "UNJUDGED", "meetExpectation": False}

    def _evaluate_window(cls, env_info, task, window):
        user_prompt = f"""<w>
{window_content}
</w>
<r>
{current_rubrics_str}
</r>"""

    def _evaluate_trajectory(cls, env_info, task, trajectory):
        user_prompt = f"""
    <t>
    {trajectory_content}
    </t>
    <r>
    {current_rubrics_str}
    </r>
    """
''',
    "orchestrator/orchestrator.py": '''def get_default_first_agent_message(language=None):
    content = "你好" if language == "chinese" else "Hi"
    return content
''',
}


def prompt_yaml(name: str) -> str:
    body = PLACEHOLDERS.get(name, f"{name} text")
    return (f"name: {name}\n"
            "# a comment line\n"
            "chinese: |-\n"
            f"  中文 {body}\n"
            "\n"
            "    indented line\n"
            "english: |\n"
            f"  English {body}\n"
            "  second line\n"
            "\n")


def fake_messages(file: str) -> str:
    """Module-level functions saying invented messages of every shape the official tool results read from
    ``file`` (a key of ``TOOL_FILES``): each asserts a message per ordinal, its placeholders as fields."""
    from pytest_vitabench.official.tool_answers import official_message_keys

    shapes: dict[str, dict[tuple[str, ...], int]] = {}
    for key in official_message_keys():
        if key.file == file:
            counts = shapes.setdefault(key.function, {})
            counts[key.placeholders] = max(counts.get(key.placeholders, 0), key.nth + 1)
    out = []
    for function, counts in shapes.items():
        lines = [f"\n\ndef {function}(self):"]
        for placeholders, count in counts.items():
            fields = " ".join("{" + p + "}" for p in placeholders)
            lines += [f'    assert ok, f"fake {function} {n}: {fields}"' for n in range(count)]
        out.append("\n".join(lines))
    return "".join(out) + "\n"


def make_checkout(root: Path) -> Path:
    """A checkout-shaped directory under ``root``; returns ``root``."""
    package = root / "src" / "vita"
    (package / "prompts").mkdir(parents=True)
    for name in PROMPTS:
        (package / "prompts" / f"{name}.yaml").write_text(prompt_yaml(name), encoding="utf-8")
    for domain in DOMAINS:
        (package / "domains" / domain).mkdir(parents=True)
        (package / "domains" / domain / "tools_schema.py").write_text(TOOLS_SCHEMA, encoding="utf-8")
        (package / "domains" / domain / "tools.py").write_text(TOOLS + fake_messages(domain), encoding="utf-8")
    for relative, text in CODE.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        extra = fake_messages("shared") if relative == TOOL_FILES["shared"] else ""
        (package / relative).write_text(text + extra, encoding="utf-8")
    (package / "__init__.py").write_text("raise SystemExit('the vita package must never be imported')\n")
    return root

"""A stand-in for a copy of the official harness, in our own words, for tests of ``--vita-official-source``.

It has the layout the plugin reads (``src/vita/prompts/*.yaml``, ``src/vita/domains/*/tools_schema.py``) and
text written here, so tests of finding and reading a source need neither ``../shared`` nor the official text.
"""

from __future__ import annotations

from pathlib import Path

from pytest_vitabench.official_source import DOMAINS, PROMPTS

#: A tools_schema.py that would leave a mark if it were ever executed.
TOOLS_SCHEMA = '''"""Stand-in tool descriptions."""
import pathlib
pathlib.Path(__file__).with_name("EXECUTED").write_text("ran")
raise SystemExit("tools_schema.py must be parsed, never executed")

TOOL_DESCRIPTIONS_ZH = {"find_things": {"description": "找东西", "args": {"keywords": "关键词"}}}
TOOL_DESCRIPTIONS_EN: dict = {"find_things": {"description": "Find things", "args": {"keywords": "words"}}}
'''


def prompt_yaml(name: str) -> str:
    return (f"name: {name}\n"
            "# a comment line\n"
            "chinese: |-\n"
            f"  中文 {name}\n"
            "\n"
            "    indented line\n"
            "english: |\n"
            f"  English {name} at {{time}}\n"
            "  second line\n"
            "\n")


def make_checkout(root: Path) -> Path:
    """A checkout-shaped directory under ``root``; returns ``root``."""
    package = root / "src" / "vita"
    (package / "prompts").mkdir(parents=True)
    for name in PROMPTS:
        (package / "prompts" / f"{name}.yaml").write_text(prompt_yaml(name), encoding="utf-8")
    for domain in DOMAINS:
        (package / "domains" / domain).mkdir(parents=True)
        (package / "domains" / domain / "tools_schema.py").write_text(TOOLS_SCHEMA, encoding="utf-8")
    (package / "__init__.py").write_text("raise SystemExit('the vita package must never be imported')\n")
    return root

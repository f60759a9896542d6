"""The documentation site and the README say what the code does: real options, generated reference, short README."""

from __future__ import annotations

import re

import pytest
from _docs import README, doc_texts, options_hook, page

from pytest_vitabench.options.settings import options

_OPTION = re.compile(r"--vita-[a-z0-9-]+")


def _without_renamed_table(text: str) -> str:
    """A page without its "Renamed options" section: the only place old spellings may appear."""
    return re.sub(r"(?ms)^## Renamed options\n.*?(?=^## |\Z)", "", text)


def _renamed() -> dict[str, str]:
    """The reference page's renamed-options table: ``{old option: new option with its key}``."""
    section = options_hook().on_page_markdown(page("reference.md")).split("## Renamed options", 1)[1]
    return {old: new for old, new in re.findall(r"^\| `(--vita-[a-z-]+)[^`]*` \| `(--vita-[a-z-]+ [^`]*)` \|$",
                                                section, flags=re.M)}


def test_every_vita_option_the_docs_name_exists():
    known = {option.option for option in options()}
    unknown = {name: sorted(set(_OPTION.findall(_without_renamed_table(text))) - known)
               for name, text in doc_texts().items()}
    assert {name: options for name, options in unknown.items() if options} == {}


def test_old_option_spellings_appear_only_in_the_renamed_table():
    renamed = _renamed()
    assert len(renamed) == 31, renamed
    old = re.compile("|".join(re.escape(o) + r"(?![\w-])" for o in renamed))
    ini = re.compile("|".join(r"\b" + o[2:].replace("-", "_") + r"\b" for o in renamed))
    # the README's "What you see" block is a run's real output, which the lead's options branch changes
    texts = {name: _without_renamed_table(text).replace(_what_you_see(text), "") for name, text in doc_texts().items()}
    found = {name: sorted(set(old.findall(text)) | set(ini.findall(text))) for name, text in texts.items()}
    assert {name: hits for name, hits in found.items() if hits} == {}


def _what_you_see(text: str) -> str:
    return text.split("## What you see", 1)[1].split("\n## ", 1)[0] if "## What you see" in text else "\0"


def test_the_readme_is_a_newcomers_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert "pytest suites/demo" in text and "pytest -n 2" in text
    table = text.split("## The options people use most", 1)[1].split("\n## ", 1)[0]
    assert len(re.findall(r"^\| `--vita-", table, flags=re.M)) == 10
    linked = set(re.findall(r"\]\(docs/([a-z-]+\.md)\)", text))
    assert {"tutorial.md", "models.md", "reference.md", "official-profile.md", "report-schema.md", "cli.md",
            "statistics.md", "extending.md", "contributing.md"} <= linked


def test_every_readme_link_into_the_docs_names_a_page():
    from _docs import DOCS_DIR

    links = re.findall(r"\]\(docs/([^)#]+)", README.read_text(encoding="utf-8"))
    assert links and [link for link in links if not (DOCS_DIR / link).is_file()] == []


def test_the_reference_page_asks_for_the_generated_table():
    rendered = options_hook().on_page_markdown(page("reference.md"))
    assert options_hook().MARKER not in rendered
    assert "| `--vita-model NAME` | `vita_model` | `reference` |" in rendered
    assert "| `--vita-resume[=RUN]` |" in rendered and "| `--vita-strict` | `vita_strict` | off |" in rendered
    assert "| `--vita-max-steps N` | `vita_max_steps` | set by `--vita-profile` |" in rendered
    assert "| `--vita-limits KEY=VALUE` | `vita_limits` |" in rendered and "| `--vita-limits rpm=VALUE` |" in rendered
    # the table sits in a block that extra.css keeps from wrapping option names
    assert '<div class="vita-options" markdown>' in rendered


def test_option_names_never_wrap():
    from _docs import DOCS_DIR

    css = (DOCS_DIR / "css" / "extra.css").read_text(encoding="utf-8")
    assert ".vita-options td:nth-child(1) code" in css and "white-space: nowrap" in css
    config = (DOCS_DIR.parent / "mkdocs.yml").read_text(encoding="utf-8")
    assert "css/extra.css" in config and "md_in_html" in config


def test_the_cli_reference_is_every_commands_help():
    import importlib.util

    from _docs import DOCS_DIR

    spec = importlib.util.spec_from_file_location("vita_docs_cli_reference", DOCS_DIR / "hooks" / "cli_reference.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    rendered = hook.on_page_markdown(page("cli.md"))
    assert hook.MARKER not in rendered
    for name, _ in hook.commands():
        assert f"## `vitabench {name}`" in rendered and f"usage: vitabench {name}" in rendered


def test_a_page_without_the_marker_is_left_as_it_is():
    assert options_hook().on_page_markdown("# Title\n\nno table here\n") == "# Title\n\nno table here\n"


def test_the_help_text_in_the_reference_is_the_one_pytest_prints(pytester: pytest.Pytester):
    result = pytester.runpytest_subprocess("--help")
    # argparse may break a line after a hyphen ("rag-" / "top-k"): joined, that reads "rag- top-k"
    help_text = re.sub(r"(\w)- (\w)", r"\1-\2", " ".join(result.stdout.str().split()))
    for option in options():  # a structured option's keys are in the reference, its summary in --help
        words = " ".join(option.help.split())
        assert words in help_text, option.option

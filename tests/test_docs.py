"""The documentation site and the README say what the code does: real options, generated reference, short README."""

from __future__ import annotations

import re

import pytest
from _docs import README, doc_texts, options_hook, page

from pytest_vitabench.settings import specs

_OPTION = re.compile(r"--vita-[a-z0-9-]+")


def test_every_vita_option_the_docs_name_exists():
    known = {s.option for s in specs()}
    unknown = {name: sorted(set(_OPTION.findall(text)) - known) for name, text in doc_texts().items()}
    assert {name: options for name, options in unknown.items() if options} == {}


def test_the_readme_is_a_newcomers_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert "pytest suites/demo" in text and "pytest -n 2" in text
    table = text.split("## The options people use most", 1)[1].split("\n## ", 1)[0]
    assert len(re.findall(r"^\| `--vita-", table, flags=re.M)) == 10
    linked = set(re.findall(r"\]\(docs/([a-z-]+\.md)\)", text))
    assert {"getting-started.md", "models.md", "reference.md", "official-profile.md"} <= linked


def test_every_readme_link_into_the_docs_names_a_page():
    from _docs import DOCS_DIR

    links = re.findall(r"\]\(docs/([^)#]+)", README.read_text(encoding="utf-8"))
    assert links and [link for link in links if not (DOCS_DIR / link).is_file()] == []


def test_the_reference_page_asks_for_the_generated_table():
    rendered = options_hook().on_page_markdown(page("reference.md"))
    assert options_hook().MARKER not in rendered
    assert "| `--vita-model VITA_MODEL` | `vita_model` | `reference` |" in rendered
    assert "| `--vita-resume [RUN]` |" in rendered and "| `--vita-strict` | `vita_strict` | off |" in rendered
    assert "| `--vita-max-steps VITA_MAX_STEPS` | `vita_max_steps` | set by `--vita-profile` |" in rendered


def test_a_page_without_the_marker_is_left_as_it_is():
    assert options_hook().on_page_markdown("# Title\n\nno table here\n") == "# Title\n\nno table here\n"


def test_the_help_text_in_the_reference_is_the_one_pytest_prints(pytester: pytest.Pytester):
    result = pytester.runpytest_subprocess("--help")
    help_text = " ".join(result.stdout.str().split())
    for spec in specs():
        words = " ".join(spec.meta.help.split())
        assert words in help_text, spec.option

"""The judge registry: built-in specs, and a third-party judge installed as a distribution with a
``vitabench.judge`` entry point, then selected by ``--vita-judge-model`` in a whole pytest run."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from _reports import run_with_installed

from pytest_vitabench.judges import judge_spec, make_judge
from pytest_vitabench.judges.audited import AuditedJudge
from pytest_vitabench.judges.registry import LLM_RUBRIC, RULES, JudgeSpec
from pytest_vitabench.judges.rules import RulesJudge

#: A third party's judge module: every rubric unmet, with a reason the failure text must carry.
THIRD_PARTY = '''
from pytest_vitabench.judges import JudgeSpec
from pytest_vitabench.judges.base import RubricVerdict, Verdict


class Strict:
    def judge(self, case):
        rubrics = [RubricVerdict(text=text, met=False, reason=f"strict judge ({self.language}) says no")
                   for text in case.subtask.rubrics()]
        return Verdict(rubrics=rubrics, reward=0.0)


def build(options):
    judge = Strict()
    judge.language = options.language
    return judge


SPEC = JudgeSpec("strict", build)
'''


def install(site: Path) -> None:
    """Lay out a distribution as an installer does: the module next to a ``.dist-info`` with its entry point."""
    (site / "strict_judge.py").write_text(textwrap.dedent(THIRD_PARTY), encoding="utf-8")
    dist = site / "strict_judge-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: strict-judge\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[vitabench.judge]\nstrict = strict_judge:SPEC\n")


def test_builtin_specs_and_what_callers_ask_of_them():
    assert judge_spec("rules") is RULES and not RULES.needs_llm and not RULES.audited
    assert judge_spec("gpt-4.1") is LLM_RUBRIC and LLM_RUBRIC.needs_llm and LLM_RUBRIC.batchable
    assert isinstance(make_judge("rules", audit=True), RulesJudge)  # the truth is never audited against itself
    with pytest.raises(ValueError, match="needs an LLM client"):
        make_judge("gpt-4.1", audit=True)


def test_an_entry_point_judge_is_found_by_name(tmp_path, monkeypatch):
    install(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = judge_spec("strict")
    assert isinstance(spec, JudgeSpec) and spec.name == "strict" and not spec.needs_llm
    judge = make_judge("strict", audit=True, language="zh")
    assert not isinstance(judge, AuditedJudge) and judge.language == "zh"


def test_a_broken_entry_point_names_itself(tmp_path, monkeypatch):
    dist = tmp_path / "broken-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[vitabench.judge]\nbroken = no_such_module:SPEC\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="entry point 'no_such_module:SPEC'"):
        judge_spec("broken")


def test_a_run_with_an_installed_judge(pytester, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    install(site)
    result, document = run_with_installed(pytester, site, "--vita-judge-model", "strict", "--vita-memory", "none")
    result.stdout.fnmatch_lines(["*strict judge (en) says no*"])
    assert document["config"]["judge_model"] == "strict"
    assert {r["outcome"] for r in document["results"]} == {"failed"}
    assert all("rules" not in (r.get("judge_details") or {}) for r in document["results"])

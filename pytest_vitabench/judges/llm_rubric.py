"""The LLM rubric judge: the paper's sliding-window judge (windows of 10 messages overlapping by 2, each
rubric's verdict carried from window to window), its full-trajectory variant (one call), votes and the
outcome judge.

Dispatch follows the official evaluator (an episode that ended by the step budget or an invalid agent message
scores 0 unjudged) with its faults fixed: a subtask without criteria or rubrics is *not judged* (officially a
free 1.0). A rubric the judge never returned, or whose last verdict its own justification contradicts, is a
*judge failure* (see :func:`~.base.unscored_reward`), never the agent's failure. An endpoint that keeps
failing raises :class:`~pytest_vitabench.llm.errors.LLMError`: an infrastructure error, never a verdict.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from ..agents.prompts import time_with_weekday
from .asking import Answer, ask
from .base import (
    FAILING_TERMINATIONS,
    JUDGE_FAILURE_POLICIES,
    NO_CRITERIA,
    JudgeCase,
    RubricVerdict,
    Verdict,
    unscored_reward,
)
from .contradiction import contradiction
from .parsing import JudgeParseError, RubricItem, match_items, rubric_items
from .prompts import FULL_SYSTEM, HEADINGS, WINDOW_SYSTEM, lang, rubric_system
from .render import chat, numbered, record_facts, render_facts, render_messages, windows

if TYPE_CHECKING:
    from ..llm.client import LLMClient
    from ..official.source import OfficialSource
    from ..official.wording import OfficialWording
    from .outcome import OutcomeJudge

T = TypeVar("T")
Mode = Literal["window", "full"]
MODES = ("window", "full")
NOT_YET = {"en": "Not evaluated yet.", "zh": "尚未评估。"}
#: Sampling temperature of the votes when several are asked for (one vote keeps the official 0.0).
VOTE_TEMPERATURE = 0.7


def rubric_texts(case: JudgeCase) -> list[str]:
    """The rubrics judged: the official union of state and overall rubrics, then any machine-checked
    rubric text the suite adds (as the rules judge does), exact-deduplicated."""
    texts = case.subtask.rubrics()
    extra = [item.rubric for item in case.subtask.rubric_checks or []]
    return list(dict.fromkeys([*texts, *extra]))


@dataclass
class _State:
    """One rubric's carried state."""

    text: str
    met: bool = False
    justification: str = ""
    judged: bool = False
    #: Why the latest verdict cannot be trusted (its justification contradicts it), or ``None``.
    contradicted: str | None = None
    #: The judge answered with the initial state it was given ("Not evaluated yet."), which judges nothing.
    echoed: bool = False


@dataclass
class _Run:
    """One vote: the final state of each rubric and what went wrong."""

    states: list[_State]
    #: Unreadable replies: written into every verdict's reason.
    problems: list[str] = field(default_factory=list)
    #: Repairs that worked (a retry, a cut-off reply read in part): kept in the details only.
    notes: list[str] = field(default_factory=list)
    calls: int = 0
    windows: int = 0

    def took(self, answer: Answer[T], where: str) -> T | None:
        """Count one judge question's calls and notes; its answer, or ``None`` when unreadable (states kept)."""
        self.calls += answer.calls
        self.notes += [f"{where}: {note}" for note in answer.notes]
        if answer.value is None:
            self.problems.append(f"{where}: judge reply {answer.problem}; rubric states kept")
        return answer.value

    def verdicts(self) -> list[RubricVerdict]:
        out = []
        suffix = f" [judge problems: {'; '.join(self.problems)}]" if self.problems else ""
        for state in self.states:
            if not state.judged:
                why = "; ".join(self.problems) if self.problems else (
                    f"the judge only echoed the state it was given ({state.justification!r})" if state.echoed
                    else "the judge gave no verdict for this rubric")
                out.append(RubricVerdict(text=state.text, met=None, reason=f"not judged: {why}",
                                         judge_failure=why))
            elif state.contradicted:
                out.append(RubricVerdict(text=state.text, met=None, judge_failure=state.contradicted,
                                         reason=f"not judged: {state.contradicted} ({state.justification})"))
            else:
                out.append(RubricVerdict(text=state.text, met=state.met, reason=state.justification + suffix))
        return out


class LLMRubricJudge:
    """The rubric judge at an OpenAI-compatible endpoint (``--vita-judge-model NAME``).

    The arguments are the :class:`~.registry.JudgeOptions` of the same names; ``temperature`` defaults to 0.0
    for one vote and :data:`VOTE_TEMPERATURE` for several. With ``official_source`` the judge sends the
    official prompts, transcript, rubric ids and states, judges only the official rubrics and reads the reply
    by those ids.

    Raises:
        ValueError: An unknown mode or failure policy, or fewer than one vote.
    """

    def __init__(self, model: str, *, client: LLMClient, mode: Mode = "window", votes: int = 1,
                 language: str = "en", outcome: OutcomeJudge | None = None, temperature: float | None = None,
                 params: dict[str, Any] | None = None, records: bool = True, failures: str = "unscored",
                 official_source: OfficialSource | None = None):
        if mode not in MODES:
            raise ValueError(f"--vita-judge-args mode must be one of {', '.join(MODES)}, got {mode!r}")
        if votes < 1:
            raise ValueError(f"--vita-judge-args votes must be at least 1, got {votes}")
        if failures not in JUDGE_FAILURE_POLICIES:
            raise ValueError(f"--vita-deviation judge-failures must be one of {', '.join(JUDGE_FAILURE_POLICIES)}, "
                             f"got {failures!r}")
        self.failures = failures
        self.model = model
        self.client = client
        self.mode = mode
        self.votes = votes
        self.language = lang(language)
        self.outcome = outcome
        self.records = records
        default = 0.0 if votes == 1 else VOTE_TEMPERATURE
        self.params = {"temperature": default if temperature is None else temperature, **(params or {})}
        self.name = model
        self.official_source = official_source

    def __repr__(self) -> str:
        return (f"LLMRubricJudge(model={self.model!r}, mode={self.mode!r}, votes={self.votes}, "
                f"outcome={self.outcome is not None}, language={self.language!r})")

    # -- the protocol -----------------------------------------------------------------------------

    def judge(self, case: JudgeCase) -> Verdict:
        language = lang((case.extra or {}).get("language") or self.language)
        if language != self.language:  # the suite's language (detected or given) wins over the default
            judge = copy.copy(self)
            judge.language = language
            return judge.judge(case)
        subtask = case.subtask
        if subtask.evaluation_criteria is None and not subtask.rubric_checks:
            return Verdict(rubrics=[], reward=0.0, not_judgeable=NO_CRITERIA)
        wording = self._official_wording()
        # The official judge knows the data's rubrics only, not the machine-checked ones a suite adds.
        rubrics = list(dict.fromkeys(subtask.rubrics())) if wording else rubric_texts(case)
        if not rubrics:
            return Verdict(rubrics=[], reward=0.0, not_judgeable="the subtask's evaluation criteria hold no rubric")
        details: dict[str, Any] = {"judge": self.model, "mode": self.mode, "votes": self.votes}
        if case.termination in FAILING_TERMINATIONS:
            why = f"not judged: the episode ended by {case.termination}, which scores 0 without judging"
            details["skipped_reason"] = case.termination
            return Verdict(rubrics=[RubricVerdict(text=t, met=None, reason=why) for t in rubrics], reward=0.0,
                           details=details)
        facts = record_facts(case.environment, subtask, case.time) if self.records else []
        runs = [self._run(case, rubrics, facts, seed) for seed in vote_seeds(case.seed, self.votes)]
        verdicts = majority([run.verdicts() for run in runs], failures_unmet=self.failures == "zero")
        # Every verdict met; one the judge could not give counts as unmet here (unlike ``reward_of``, with which
        # the rules judge sets aside the rubrics it has no check for).
        trajectory_reward = 1.0 if verdicts and all(v.met is True for v in verdicts) else 0.0
        details.update(trajectory_reward=trajectory_reward, windows=runs[0].windows,
                       calls=sum(run.calls for run in runs))
        problems = [_voted(i, p, self.votes) for i, run in enumerate(runs) for p in run.problems]
        notes = [_voted(i, n, self.votes) for i, run in enumerate(runs) for n in run.notes]
        if self.outcome is not None:
            result = self.outcome.judge(case, seed=case.seed, language=self.language)
            details["outcome"] = {"has_action": result.has_action, "reward": result.reward, **result.detail}
            verdicts = verdicts + result.verdicts
            problems += result.problems
            notes += result.notes
        if problems:
            details["problems"] = problems
        if notes:
            details["notes"] = notes
        reward, unscored = unscored_reward(verdicts, self.failures)
        if unscored:
            details["unscored"] = unscored
        return Verdict(rubrics=verdicts, reward=reward, details=details, unscored=unscored)

    # -- one vote ---------------------------------------------------------------------------------

    def _official_wording(self) -> OfficialWording | None:
        if self.official_source is None:
            return None
        from ..official.wording import wording_for

        return wording_for(self.official_source, self.language)

    def _run(self, case: JudgeCase, rubrics: list[str], facts: list[dict[str, Any]], seed: int) -> _Run:
        """One vote. Under the official wording it runs as the official judge does: the sliding-window judge
        asks every window (the official ``trajectory`` evaluation), the full-trajectory judge the whole
        conversation once (``trajectory_full_traj_rubric``); the states are carried by their official ids, and
        a reply's item changes only the rubric its ``rubric_idx`` names. Our own judge skips a window with
        nothing to show (no call, state unchanged)."""
        wording = self._official_wording()
        initial = wording.initial_justification() if wording else NOT_YET[self.language]
        run = _Run(states=[_State(text=t, justification=initial) for t in rubrics])
        read: Callable[[Any], dict[int, Any]] = partial(_matched, rubrics=rubrics)
        if wording is not None:
            read = partial(_by_official_id, ids={wording.rubric_id(pos): pos for pos in range(len(rubrics))})
        spans = windows(len(case.messages)) if self.mode == "window" else [(0, len(case.messages))]
        for number, (start, end) in enumerate(spans, 1):
            if wording is None:
                messages = self._messages(case, run.states, facts, number, len(spans), start, end)
            else:
                messages = self._official_messages(wording, case, run.states, number, len(spans), start, end)
            if messages is None:
                continue
            run.windows += 1
            answer = ask(self.client, model=self.model, messages=messages, seed=seed, language=self.language,
                         read=read, params=self.params)
            items = run.took(answer, f"window {number}/{len(spans)}" if self.mode == "window" else "full trajectory")
            for pos, item in (items or {}).items():
                state = run.states[pos]
                given = item.reason if isinstance(item, RubricItem) else item.get("justification")
                if not state.judged and isinstance(given, str) and given.strip() == initial.strip():
                    state.echoed = True  # a weak judge copying its input back: no verdict, a judge failure
                    continue
                state.judged = True
                if isinstance(item, RubricItem):
                    state.met = bool(item.met)
                    state.justification = item.reason or state.justification
                    state.contradicted = contradiction(state.met, item.reason)
                else:  # the official reply's object: only the fields it gives of the right type change
                    if isinstance(item.get("meetExpectation"), bool):
                        state.met = item["meetExpectation"]
                    if isinstance(item.get("justification"), str):
                        state.justification = item["justification"]
        return run

    def _official_messages(self, wording: OfficialWording, case: JudgeCase, states: list[_State], number: int,
                           total_windows: int, start: int, end: int) -> list[dict[str, Any]]:
        clock = time_with_weekday(case.time, self.language) if case.time else ""
        rubrics = wording.judge_rubrics([(wording.rubric_id(pos), s.text, s.justification, s.met)
                                         for pos, s in enumerate(states)])
        transcript = wording.judge_transcript(case.messages, start, end)
        window = (number, total_windows) if self.mode == "window" else None
        return wording.judge_messages(time=clock, instruction=case.subtask.instruction, window=window,
                                      transcript=transcript, rubrics=rubrics)

    def _messages(self, case: JudgeCase, states: list[_State], facts: list[dict[str, Any]], number: int,
                  total_windows: int, start: int, end: int) -> list[dict[str, Any]] | None:
        """Our judge's request for one window, or ``None`` when the window shows nothing."""
        transcript = render_messages(case.messages, start, end, self.language)
        if not transcript.strip():
            return None
        h = HEADINGS[self.language]
        clock = time_with_weekday(case.time, self.language) if case.time else h["no_time"]
        parts = [f"{h['time']}\n{clock}", f"{h['request']}\n{case.subtask.instruction}"]
        if self.records:
            parts.append(f"{h['records']}\n{h['records_note']}\n{render_facts(facts) if facts else h['no_records']}")
        if self.mode == "window":
            state = [{"rubric_idx": i, "rubric": s.text, "justification": s.justification, "met": s.met}
                     for i, s in enumerate(states, 1)]
            parts.append(f"{h['state']}\n<rubrics>\n{json.dumps(state, ensure_ascii=False, indent=1)}\n</rubrics>")
            heading = h["window"].format(i=number, n=total_windows, a=start + 1, b=end, total=len(case.messages))
            system = rubric_system(WINDOW_SYSTEM, self.language, self.records)
        else:
            parts.append(f"{h['rubrics']}\n{numbered([s.text for s in states])}")
            heading = h["conversation"].format(total=len(case.messages))
            system = rubric_system(FULL_SYSTEM, self.language, self.records)
        parts.append(f"{heading}\n{transcript}")
        return chat(system, "\n\n".join(parts))


# -- votes (``--vita-judge-args votes N``) ---------------------------------------------------------------
# With N votes each rubric is met when more than half of the votes say so; a tie counts as unmet, so voting
# never makes a pass easier to get by luck (the reward needs every rubric met, so one flaky verdict decides it).


def vote_seeds(trial_seed: int, votes: int) -> list[int]:
    """Cache seeds of the votes: the trial seed itself for one vote (a plain run's cache entries), else
    ``trial_seed * 1000 + v`` so every vote is a distinct sample and repeated runs reuse the same ones."""
    if votes <= 1:
        return [trial_seed]
    return [trial_seed * 1000 + vote for vote in range(votes)]


def majority(runs: list[list[RubricVerdict]], *, failures_unmet: bool = False) -> list[RubricVerdict]:
    """Per-rubric majority of ``runs`` (one verdict list per vote, over the same rubrics in the same order).

    Raises:
        ValueError: No runs, or runs of different lengths.
    """
    if not runs:
        raise ValueError("majority() needs at least one run")
    if len({len(run) for run in runs}) != 1:
        raise ValueError("every vote must judge the same rubrics")
    if len(runs) == 1:
        return list(runs[0])
    out = []
    for column in zip(*runs, strict=True):
        yes = sum(1 for v in column if v.met is True)
        no = sum(1 for v in column if v.met is False)
        total = len(column) if failures_unmet else len(column) - sum(1 for v in column if v.judge_failure)
        if yes == 0 and no == 0:
            out.append(column[0].model_copy(update={"reason": f"no vote could judge it: {column[0].reason}"}))
            continue
        met = yes * 2 > total
        pick = next((v for v in column if v.met is met), column[0])
        tie = " (tie: unmet)" if yes * 2 == total else ""
        out.append(RubricVerdict(text=column[0].text, met=met, kind=column[0].kind,
                                 reason=f"{yes}/{total} votes met{tie}; {pick.reason}"))
    return out


def _voted(index: int, text: str, votes: int) -> str:
    return f"vote {index + 1}: {text}" if votes > 1 else text


def _matched(value: Any, rubrics: list[str]) -> dict[int, RubricItem]:
    matched = match_items(rubric_items(value), rubrics)
    if not matched:
        raise JudgeParseError("no item of the reply matches a rubric (wrong rubric_idx values?)")
    return matched


def _by_official_id(value: Any, ids: dict[str, int]) -> dict[int, dict[str, Any]]:
    """The reply's items keyed by the position their official ``rubric_idx`` names (others ignored)."""
    items = value if isinstance(value, list) else [value]
    matched = {ids[item["rubric_idx"]]: item for item in items
               if isinstance(item, dict) and isinstance(item.get("rubric_idx"), str) and item["rubric_idx"] in ids}
    if not matched:
        raise JudgeParseError("no item of the reply names an official rubric id (rubric_0, rubric_1, ...)")
    return matched

"""The judges ``--vita-judge-model`` selects, each declared once as a :class:`JudgeSpec` (like ``DomainSpec``).

``rules`` is the built-in offline judge; ``module:SPEC`` names a spec in the user's code (beside the suite will do);
a third-party package adds one with an entry point in the
``vitabench.judge`` group named by its ``--vita-judge-model`` value; any other name is a model at the endpoint,
judged by the LLM rubric judge. Every caller builds its judge with :func:`make_judge`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from ..llm.batch import BatchJournal, BatchSubmitter
from ..official.behaviour import outcome_rules
from ..options import user_code
from ..options.parts import JudgeSettings
from .audited import AuditedJudge
from .base import Judge
from .batched import BatchJudge
from .llm_rubric import LLMRubricJudge
from .outcome import OutcomeJudge
from .rules import RulesJudge

if TYPE_CHECKING:
    from pathlib import Path

    from ..llm.client import LLMClient

ENTRY_POINT_GROUP = "vitabench.judge"


@dataclass(frozen=True)
class JudgeOptions:
    """What the ``--vita-judge-*`` options say: the input of every judge's build function.

    Each field is the option of its name (``model`` is ``--vita-judge-model``, ``outcome``
    ``--vita-judge-args outcome-reward``, ``official_source`` ``--vita-official-source``, ``params`` the extra judge
    request
    parameters); ``client`` is the run's one LLM client, ``None`` for a judge that needs no LLM.
    """

    model: str
    client: LLMClient | None = None
    mode: str = "window"
    outcome: bool = False
    votes: int = 1
    language: str = "en"
    params: dict[str, Any] | None = None
    records: bool = True
    outcome_style: str = "default"
    failures: str = "unscored"
    official_source: Any = None


@dataclass(frozen=True)
class JudgeSpec:
    """One judge, as the registry or a ``vitabench.judge`` entry point declares it.

    Attributes:
        name: The judge's name (``rules``; ``llm`` for the rubric judge any model name selects).
        build: Makes the judge from the options; raises ``ValueError`` naming the option to fix.
        needs_llm: The run opens its LLM client for it.
        audited: A run records the rules judge's verdicts beside its own (:class:`~.audited.AuditedJudge`).
        batchable: ``--vita-judge-args batch`` can send its requests through the endpoint's Batch API.
    """

    name: str
    build: Callable[[JudgeOptions], Judge]
    needs_llm: bool = False
    audited: bool = False
    batchable: bool = False


def _rules(options: JudgeOptions) -> Judge:
    if options.outcome or options.votes != 1:
        raise ValueError("--vita-judge-args outcome-reward and --vita-judge-args votes need an LLM judge "
                         "(--vita-judge-model NAME); the rules judge is deterministic")
    return RulesJudge()


def _llm_rubric(options: JudgeOptions) -> Judge:
    o = options
    if o.client is None:
        raise ValueError(f"--vita-judge-model {o.model!r} is an LLM judge and needs an LLM client "
                         "(an endpoint: --vita-base-url / $OPENAI_BASE_URL and a key in --vita-api-key-env)")
    outcome = OutcomeJudge(o.model, client=o.client, language=o.language, params=o.params,
                           rules=outcome_rules(o.outcome_style)) if o.outcome else None
    return LLMRubricJudge(o.model, client=o.client, mode=o.mode, votes=o.votes,  # type: ignore[arg-type]
                          language=o.language, outcome=outcome, params=o.params, records=o.records,
                          failures=o.failures, official_source=o.official_source)


RULES = JudgeSpec("rules", _rules)
LLM_RUBRIC = JudgeSpec("llm", _llm_rubric, needs_llm=True, audited=True, batchable=True)
#: The built-in judges selected by name; any other name is a model judged by :data:`LLM_RUBRIC`.
BUILTIN = {spec.name: spec for spec in (RULES,)}


def judge_spec(model: str) -> JudgeSpec:
    """The spec of the judge ``--vita-judge-model model`` selects: built-in, entry point, else the LLM judge.

    Raises:
        ValueError: A ``vitabench.judge`` entry point of that name that does not load a :class:`JudgeSpec`.
    """
    if model in BUILTIN:
        return BUILTIN[model]
    if user_code.is_reference(model) and user_code.findable(model):  # else a model's name:tag
        spec = user_code.load(model, what="judge")
        if not isinstance(spec, JudgeSpec):
            raise ValueError(f"--vita-judge-model {model!r} names a {type(spec).__name__}, not a JudgeSpec")
        return spec
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == model:
            try:
                spec = ep.load()
            except Exception as exc:  # a broken third-party package: say which entry point
                raise ValueError(f"cannot load judge {model!r} (entry point {ep.value!r}): {exc}") from exc
            if not isinstance(spec, JudgeSpec):
                raise ValueError(f"judge entry point {ep.value!r} is not a JudgeSpec")
            return spec
    return LLM_RUBRIC


def make_judge(model: str, *, audit: bool = False, **options: Any) -> Judge:
    """The judge of ``--vita-judge-model model``, built through its :class:`JudgeSpec` from ``options`` (the
    other :class:`JudgeOptions` fields); ``audit`` wraps an audited judge in :class:`~.audited.AuditedJudge`.

    Raises:
        ValueError: An LLM judge without a client, an unknown mode, fewer than one vote, or LLM-only
            options given to the ``rules`` judge.
    """
    spec = judge_spec(model)
    judge = spec.build(JudgeOptions(model=model, **options))
    return AuditedJudge(judge) if audit and spec.audited else judge


def judge_for(settings: JudgeSettings, *, client: LLMClient | None = None, language: str = "en",
              official_source: Any = None, params: dict[str, Any] | None = None) -> Judge:
    """The run's judge from its settings (``--vita-judge-model``, ``--vita-judge-args``, its profile switches),
    sending its requests one by one; an audited (LLM) judge carries the rules judge's verdicts beside its own.

    Raises:
        ValueError: As :func:`make_judge`.
    """
    s = settings
    return make_judge(s.judge_model, audit=True, client=client, mode=s.judge_mode, outcome=s.outcome_reward,
                      votes=s.judge_votes, language=language, records=s.judge_records, outcome_style=s.outcome_style,
                      failures=s.judge_failures, official_source=official_source, params=params)


def batched(judge: Judge, settings: JudgeSettings, *, client: LLMClient, batch_dir: Path | None,
            writer: str = "main") -> Judge | BatchJudge:
    """``judge`` sending its requests in batches (``--vita-judge-args batch``) journaled in ``batch_dir`` under
    this process's ``writer`` name; ``judge`` itself when the settings or the judge do not batch.

    Raises:
        ValueError: Batches asked for without a run directory to journal them in.
    """
    if not settings.judge_batch or not judge_spec(settings.judge_model).batchable:
        return judge
    if batch_dir is None:
        raise ValueError("--vita-judge-args batch needs a run directory to journal its batches in")
    submitter = BatchSubmitter(client, BatchJournal(batch_dir, writer=writer), poll_s=settings.batch_poll)
    # A round goes out once the queue has been quiet for a poll interval (at most 2 s): as patient
    # with the process's own episodes as with the provider.
    return BatchJudge(judge, client=client, submitter=submitter, linger_s=min(2.0, settings.batch_poll))

"""Judges: ``rules`` (deterministic, offline, the default), the LLM rubric judge by model name, and third-party
judges from ``vitabench.judge`` entry points, declared in :mod:`.registry`."""

from .base import Judge
from .registry import JudgeOptions, JudgeSpec, judge_spec, make_judge

__all__ = ["Judge", "JudgeOptions", "JudgeSpec", "judge_spec", "make_judge"]

"""The exit status of a gated run (``docs/ci.md`` has the table).

With a gate the status says what the gate found, not whether single items failed (a benchmark run always
has failed items); infrastructure errors (6) win over a missed gate (1), because the scores are incomplete.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class VitaExit(IntEnum):
    """Exit statuses of a gated run (pytest's own values where they mean the same)."""

    OK = 0
    GATE_FAILED = 1
    INTERRUPTED = 2
    INTERNAL_ERROR = 3
    USAGE_ERROR = 4
    NO_TESTS_COLLECTED = 5
    INFRASTRUCTURE = 6


@dataclass(frozen=True)
class GateInputs:
    """What the gate found in a run.

    Attributes:
        missed_thresholds: Messages of the ``--vita-fail-under`` thresholds that were missed.
        gate_failures: Messages of other gates that failed (e.g. a regression against a baseline).
        infrastructure_errors: Items whose outcome is ``error``.
        other_failures: Failed or errored tests that are not VitaBench items, in the same session.
    """

    missed_thresholds: tuple[str, ...] = ()
    gate_failures: tuple[str, ...] = ()
    infrastructure_errors: int = 0
    other_failures: int = 0


def gated_exit_status(pytest_status: int, found: GateInputs) -> int:
    """The exit status of a run with a gate on, given the status pytest would return on its own."""
    if pytest_status in (VitaExit.INTERRUPTED, VitaExit.INTERNAL_ERROR, VitaExit.USAGE_ERROR,
                         VitaExit.NO_TESTS_COLLECTED):
        return int(pytest_status)
    if found.infrastructure_errors:
        return int(VitaExit.INFRASTRUCTURE)
    if found.missed_thresholds or found.gate_failures or found.other_failures:
        return int(VitaExit.GATE_FAILED)
    return int(VitaExit.OK)


def explain(status: int, found: GateInputs) -> str:
    """One line saying why the run exits with ``status``, for the terminal and the step summary."""
    if status == VitaExit.INFRASTRUCTURE:
        return (f"exit status 6 (infrastructure errors): {found.infrastructure_errors} item(s) ended in an "
                "infrastructure error, so the scores are incomplete; fix the endpoint and rerun")
    if status == VitaExit.GATE_FAILED:
        parts = []
        if found.missed_thresholds:
            parts.append(f"{len(found.missed_thresholds)} threshold(s) missed")
        if found.gate_failures:
            parts.append(f"{len(found.gate_failures)} gate failure(s)")
        if found.other_failures:
            parts.append(f"{found.other_failures} non-VitaBench test failure(s)")
        return f"exit status 1 (gate failed): {', '.join(parts)}"
    if status == VitaExit.OK:
        return "exit status 0: every gate passed (failed items do not fail a gated run)"
    return f"exit status {status} (pytest's)"

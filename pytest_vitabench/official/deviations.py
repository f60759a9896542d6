"""The official profile's deviations: each place where our default differs from the official harness in a way
that can change a score, with what each side does and why.

:data:`DEVIATIONS` is the one list the docs' deviation table (generated), the report's ``profile`` block and the
comparability verdict follow; each one's switch, default and official value are its setting's
(:mod:`pytest_vitabench.options.settings`). Fixes of outright crashes and wrong states are not deviations: both profiles
keep them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..options.settings import spec
from ..options.values import TOOL_CHECKS


@dataclass(frozen=True)
class Deviation:
    """One score-relevant difference from the official harness, on the setting ``field``."""

    field: str
    official_does: str
    we_do: str
    why: str

    @property
    def option(self) -> str:
        return spec(self.field).option

    @property
    def key(self) -> str:
        """Its key in ``--vita-deviation`` (``search``), or its own option's name (``max_steps``)."""
        return spec(self.field).key or self.field

    def spelling(self, value: Any) -> str:
        """How a person sets it to ``value``: ``--vita-deviation search=default``, ``--vita-max-steps 100``."""
        return spec(self.field).spelling(value)

    @property
    def official(self) -> Any:
        """The official harness's value, as ``--vita-profile official`` gives it (raw text)."""
        return spec(self.field).meta.official


DEVIATIONS: tuple[Deviation, ...] = (
    Deviation("judge_records",
              "the LLM judge sees the trajectory only (its database field is always empty)",
              "the LLM judge also sees the orders, bookings and reservations as they stand at the end",
              "a judge that cannot see the database credits orders the agent only claimed or that later failed"),
    Deviation("judge_failures",
              "a rubric the LLM judge never returned a readable verdict for keeps its initial state, unmet: the "
              "item scores 0",
              "such a rubric, a rubric missing from the reply and a verdict its own justification contradicts are "
              "judge failures; an item whose reward hangs on one is unscored: reported and counted in its own "
              "column, left out of the metrics",
              "a judge failure is not the agent's failure; scoring it 0 lowers the agent's score by the judge's "
              "error rate"),
    Deviation("rag_style",
              "hits ordered by similarity; no hit: a whitespace keyword search, then an LLM summary of all "
              "chunks (or a dump); read_preference_memory returns that summary",
              "hits shown oldest first; no hit: the newest top_k chunks; read_preference_memory returns the "
              "newest 4,096 tokens (no LLM)",
              "chronological hits show which of two contradicting records is newer; keyword search cannot split "
              "Chinese; the summary re-reads every chunk at every update"),
    Deviation("tool_checks",
              "tools accept calls the data model allows: no stock check (delivery, in-store), past times for "
              "reservations and travel, products of any store, any attributes length, arguments untyped, "
              "reservations whatever enable_reservation says, cancellations of delivered or consumed orders, "
              "delivery orders without products",
              "each of those is refused with a tool error: " + ", ".join(TOOL_CHECKS),
              "an accepted call that no real service would accept rewards a wrong trajectory"),
    Deviation("max_steps",
              "300 hops per subtask (the CLI's default; the paper reports no limit); reaching it scores 0",
              "100 hops per subtask; reaching it scores 0",
              "the built-in agents finish in under 30 hops; 100 bounds the cost of a looping LLM agent"),
    Deviation("agent_prompt",
              "the official rules only, including: confirm the user id with the user before using it",
              "adds 'later evidence overrides earlier evidence' and, on proactive subtasks, 'ask for it or look "
              "it up with the tools first'; drops the contradictory confirm-the-user-id rule (the profile shown "
              "is the signed-in account)",
              "the official prompt tells the agent both to use the profile's user id directly and to confirm it"),
    Deviation("outcome_style",
              "--vita-judge-args outcome-reward judges the last resolvable write call (even a failed or cancelled one) "
              "against the target entity and the chosen one; every rubric must hold of the outcome",
              "judges the last successful write as it stands at the end, shows the chosen entity only, and lets "
              "a rubric about the conversation be 'not applicable' (met)",
              "a failed call is not an outcome; a rubric no entity can show would fail every outcome"),
    Deviation("search_style",
              "search keywords joined with no separator ('spicy','noodles' -> 'spicynoodles'); the candidate text "
              "glues a store's or hotel's name to its first tag; punctuation stripped; ties in database order; "
              "candidates sharing a text all show the last of them; a city or route matches at partial ratio 40",
              "keywords joined with spaces over 'name tag tag' texts; ties by id; a city matches at 80 after "
              "dropping a 'city' suffix; flights and trains by departure time",
              "joined keywords and glued names rank the wrong candidates first; a 40 city bar lets unrelated "
              "cities through"),
    Deviation("tool_results",
              "tools answer with their records' own string forms (Python reprs: 'Store(name=..., tags=[...])'); a "
              "failed precondition is plain text, not an error; their own checks, order and state changes (a "
              "delivered order can be cancelled, a cancelled one modified)",
              "JSON of each record's visible fields; every refusal is a counted tool error",
              "JSON is what a tool-calling model is trained on; a refusal the agent can tell from a result is "
              "counted; the official text of a loaded order shows its raw product dicts"),
    Deviation("episode_style",
              "an agent message with ###STOP### ends the subtask even when it also calls tools (they never run); "
              "3 attempts at a non-empty agent message; a crash, or tool-call arguments that are not a JSON "
              "object, restarts the run up to 3 times (4 attempts)",
              "the tool calls next to ###STOP### run and the agent goes on; 4 attempts; a crash is an error at "
              "once; malformed arguments go back to the agent as a counted tool error",
              "an order placed together with the stop token is the agent's outcome; a restart re-rolls a crashed "
              "trial instead of reporting it"),
    Deviation("metrics_style",
              "subtask level: each missing trial of a subtask counts as a 0.0 reward (Avg@k and Pass@k keep the "
              "partial credit); a subtask without evaluation criteria is a unit of 0.0 rewards when a later "
              "subtask of that user was judged, and no unit otherwise",
              "a subtask with fewer than k finished trials scores 0 on all three metrics (counted in n_short); a "
              "subtask without criteria is reported as not judged and left out",
              "a partial run's Avg@k is not comparable with a full one's; a subtask nobody can judge is not the "
              "agent's failure"),
)

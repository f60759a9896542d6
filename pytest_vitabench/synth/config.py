"""The generator's size knobs and the presets that set them (``vitabench synth --preset ...``).

The ``paper`` preset follows the statistics of the VitaBench 2.0 paper (section C.2 and A.2.3); the
``small`` preset keeps every ratio at a size small enough for tests and quick looks. ``demo`` is not a
generator preset: it is the hand-curated suite of :mod:`.demo`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar

T = TypeVar("T")

#: Figures of the paper the presets aim at (also printed by ``vitabench validate`` for comparison).
PAPER: dict[str, Any] = {
    "users": 56,
    "subtasks": 819,
    "subtasks_per_user": 14.6,
    "domain_mix": {"delivery": 404, "instore": 223, "ota": 144},
    "entities": 41_414,
    "entities_per_user": 739.5,
    "preferences": 2_286,
    "preferences_per_user": 40.8,
    "additions_per_user": 36.07,
    "deletions_per_user": 7.52,
    "modifications_per_user": 4.79,
    "changes_per_user": 48.38,
    "history_days_per_user": 1_580,
    "events_per_user": 2_093,
    "orders_per_user": 221,
    "noise_share": 0.20,
    "user_specific_share": 0.924,
    "category_share": {"Food": 0.35, "Shopping": 0.181, "Travel": 0.202, "Entertainment": 0.21, "Special": 0.05},
    "female_share": 0.625,
    "age_20_29_share": 0.625,
    "age_30_39_share": 0.268,
    "born_after_1990_share": 0.875,
    "gen_z_share": 0.714,
    "mean_age": 31,
    "tier_share": {"emerging first-tier": 0.50, "first-tier": 0.286, "lower-tier": 0.214},
    "moved_share": 0.59,
    "collar_share": {"white-collar": 0.607, "blue-collar": 0.161, "gray-collar": 0.232},
    "consumption_share": {"high": 0.196, "medium": 0.625, "low": 0.179},
}


def knob(default: T, text: str) -> T:
    """A :class:`SynthConfig` field: its default and its ``--help`` text."""
    return field(default=default, metadata={"help": text})


@dataclass(frozen=True)
class SynthConfig:
    """Every knob of the generator; each one's text is its ``--help`` in ``vitabench synth``."""

    seed: int = knob(0, "Base seed; the same seed and knobs give a byte-identical suite.")
    users: int = knob(56, "Number of users.")
    subtasks_mean: float = knob(14.0, "Mean subtasks per user (the total is ``round(users * subtasks_mean)``).")
    subtasks_min: int = knob(10, "Fewest subtasks of a user.")
    subtasks_max: int = knob(20, "Most subtasks of a user.")
    delivery_share: float = knob(404 / 771, "Share of delivery subtasks (paper: 404 of 771).")
    instore_share: float = knob(223 / 771, "Share of in-store subtasks (paper: 223 of 771).")
    ota_share: float = knob(144 / 771, "Share of travel subtasks (paper: 144 of 771).")
    proactive_share: float = knob(0.18, "Share of proactive subtasks.")
    merchants_min: int = knob(10, "Fewest merchants per subtask environment.")
    merchants_max: int = knob(15, "Most merchants per subtask environment.")
    products_min: int = knob(40, "Fewest products per subtask environment.")
    one_off_min: int = knob(5, "Fewest distractors that break exactly one rubric, per rubric dimension.")
    multi_min: int = knob(3, "Fewest distractors that break several rubrics.")
    multi_max: int = knob(5, "Most distractors that break several rubrics.")
    history_days: int = knob(1_580, "Mean days of history per user.")
    events_per_user: int = knob(2_093, "Mean history events (behaviours and conversations) per user.")
    orders_per_user: int = knob(221, "Mean orders in the history per user.")
    noise_share: float = knob(0.20, "Share of noise events (exploratory, for someone else, impulsive, corrective).")
    misleading_rate: float = knob(0.12, "Chance that noise right before a subtask touches one of its decisive "
                                        "preferences.")
    preferences_per_user: float = knob(40.8, "Mean preferences per user.")
    additions_per_user: float = knob(36.07, "Mean preference additions per user.")
    deletions_per_user: float = knob(7.52, "Mean preference deletions per user.")
    modifications_per_user: float = knob(4.79, "Mean preference modifications per user.")
    event_shape_share: float = knob(0.25, "Share of users whose history uses the event shape ``{type, timestamp, "
                                          "content}`` instead of daily records ``{date, behavior, dialogue}``.")
    id_prefix: str = knob("U", "First letter of user ids.")

    def validated(self) -> SynthConfig:
        """This configuration, or ValueError naming the knob that cannot work."""
        rules = [
            (self.users >= 1, "users must be at least 1"),
            (1 <= self.subtasks_min <= self.subtasks_max, "need 1 <= subtasks_min <= subtasks_max"),
            (10 <= self.merchants_min <= self.merchants_max <= 30, "need 10 <= merchants_min <= merchants_max <= 30"),
            (self.one_off_min >= 1 and 0 <= self.multi_min <= self.multi_max,
             "need one_off_min >= 1 and 0 <= multi_min <= multi_max"),
            (0 <= self.noise_share < 0.6 and 0 <= self.misleading_rate <= 1,
             "need 0 <= noise_share < 0.6 and 0 <= misleading_rate <= 1"),
            (0 <= self.proactive_share <= 0.5, "need 0 <= proactive_share <= 0.5"),
            (self.history_days >= 60 and self.events_per_user >= 20,
             "need history_days >= 60 and events_per_user >= 20"),
            (min(self.delivery_share, self.instore_share, self.ota_share) >= 0, "domain shares must not be negative"),
        ]
        if problems := [message for kept, message in rules if not kept]:
            raise ValueError("; ".join(problems))
        return self


PRESETS: dict[str, SynthConfig] = {
    "paper": SynthConfig(),
    "small": SynthConfig(users=4, subtasks_mean=5, subtasks_min=5, subtasks_max=5, history_days=240,
                         events_per_user=320, orders_per_user=34, preferences_per_user=24,
                         additions_per_user=19, deletions_per_user=3, modifications_per_user=2,
                         proactive_share=0.2),
}


def preset(name: str, **overrides: Any) -> SynthConfig:
    """The named preset with knob overrides applied (``None`` values are ignored).

    Raises:
        ValueError: Unknown preset or knob, or knobs that cannot work together.
    """
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; generator presets: {', '.join(PRESETS)} (and 'demo')")
    unknown = sorted(set(overrides) - {f.name for f in fields(SynthConfig)})
    if unknown:
        raise ValueError(f"unknown synth knob(s): {', '.join(unknown)}")
    return replace(PRESETS[name], **{k: v for k, v in overrides.items() if v is not None}).validated()

"""Pydantic models of a VitaBench suite file (2.0 ``tasks.json``, and 1.0 tasks converted by the loader).

Unlike VitaBench 2.0's loader we keep every field and unknown keys (``extra="allow"``), so the loader can
report them once per file instead of dropping them silently. Environments stay plain dicts here; each
domain validates its own, so the loader can report the JSON path of a bad entity.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .checks import RubricCheck

DOMAINS = ("delivery", "instore", "ota")
#: The entity containers of an environment, and the kind of record a product of each makes.
ENTITY_CONTAINERS = {"stores": "delivery", "shops": "instore", "hotels": "hotel", "attractions": "attraction",
                     "flights": "flight", "trains": "train", "taxis": "taxi"}


class _Open(BaseModel):
    """Keeps unknown keys so they are reported, never silently dropped."""

    model_config = ConfigDict(extra="allow")


class BehaviorEvent(_Open):
    behavior_type: str
    content: Any = None


class DialogueTurn(_Open):
    role: str
    content: str


class DailyRecord(_Open):
    """Interaction shape (A), the one the released data uses: one day of behaviour and dialogue."""

    date: str
    behavior: list[BehaviorEvent] = Field(default_factory=list)
    dialogue: list[DialogueTurn] = Field(default_factory=list)

    @property
    def when(self) -> str:
        return self.date


class EventRecord(_Open):
    """Interaction shape (B), VitaBench 2.0's ``Interaction`` model: one typed, timestamped event."""

    type: str
    timestamp: str
    content: Any = None

    @property
    def when(self) -> str:
        return self.timestamp


class UserScenario(_Open):
    user_profile: dict[str, Any] = Field(default_factory=dict)
    personalized_preference_memory: dict[str, Any] | None = None


class ExpectedState(_Open):
    required_orders: list[Any] | None = None
    optional_orders: list[Any] | None = None
    state_rubrics: list[str] | None = None


class EvaluationCriteria(_Open):
    expected_states: list[ExpectedState] | None = None
    overall_rubrics: list[str] | None = None

    def rubrics(self) -> list[str]:
        """The union VitaBench 2.0's trajectory judge uses: state rubrics then overall, exact-deduplicated."""
        states = [rubric for state in self.expected_states or [] for rubric in state.state_rubrics or []]
        return list(dict.fromkeys([*states, *(self.overall_rubrics or [])]))

    def required_orders(self) -> list[Any]:
        return [order for state in self.expected_states or [] for order in state.required_orders or []]


class SubTask(_Open):
    subtask_id: str
    domain: str
    instruction: str
    environment: dict[str, Any]
    user_scenario: UserScenario | None = None
    evaluation_criteria: EvaluationCriteria | None = None
    interactions: list[DailyRecord | EventRecord] = Field(default_factory=list)
    skill_tested: list[str] = Field(default_factory=list)
    user_intention: str | None = ""
    message_history: list[Any] | None = None
    # Kept although VitaBench 2.0's loader drops them (its models ignore fields they do not declare).
    task_turn_num: str | None = None
    current_time: str | None = None
    start_date: str | None = None
    end_date: str | None = None
    historical_chat: Any = None
    historical_behavior: Any = None
    target_product_ids: list[str] | None = None
    task: str | None = None
    # Our extension: machine checks for the rules judge (see suite/checks.py).
    rubric_checks: list[RubricCheck] | None = None

    @field_validator("domain")
    @classmethod
    def _known_domain(cls, value: str) -> str:
        parts = [part.strip() for part in value.split(",")]
        unknown = [part for part in parts if part not in DOMAINS]
        if unknown:
            raise ValueError(f"unknown domain {', '.join(map(repr, unknown))}; expected one of {', '.join(DOMAINS)}")
        return ",".join(parts)

    @property
    def domains(self) -> list[str]:
        return self.domain.split(",")

    @property
    def env_time(self) -> str:
        return str(self.environment.get("time") or "")

    @property
    def is_proactive(self) -> bool:
        return "proactive" in self.skill_tested

    @property
    def skills(self) -> list[str]:
        """VitaBench 2.0's metrics' split of subtasks: ``proactive`` or else ``personalize``."""
        return ["proactive"] if self.is_proactive else ["personalize"]

    def rubrics(self) -> list[str]:
        return self.evaluation_criteria.rubrics() if self.evaluation_criteria else []

    def groundtruth_preferences(self) -> dict[str, Any] | None:
        return self.user_scenario.personalized_preference_memory if self.user_scenario else None


class UserTask(_Open):
    """One user (``PersonalizationTask``): an ordered sequence of subtasks sharing one memory."""

    id: str
    user_id: str
    user_profile: dict[str, Any] = Field(default_factory=dict)
    subtasks: list[SubTask] = Field(min_length=1)
    #: ``vitabench2`` for a VitaBench 2.0-format user, ``vitabench1`` for a converted 1.0 task.
    source_format: Literal["vitabench2", "vitabench1"] = "vitabench2"

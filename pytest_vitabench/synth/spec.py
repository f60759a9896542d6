"""A curated suite declared as data: users, their preferences, merchants, decision dimensions and histories.

The demo suite (``synth/specs/demo.json``) is written this way: every fact a person would choose by hand
(who the users are, what they ask for, which words decide, what they said when) is in the file; what a
person would not choose by hand (ids, coordinates, prices, ratings, which merchant is the target, rubric
checks) is drawn by :mod:`.curated` from a stream seeded by the spec's ``seed``, so a spec always expands to
the same bytes. The models below are the format; a dimension's ``rubric`` is the atomic English rubric and
its ``reason`` the ``distraction_reason`` of a candidate that breaks it.

What the author of a spec keeps true (``tests/synth/test_demo.py`` checks it for the demo): the words that
decide (``oat milk``, ``quiet``, ``non-smoking``) appear literally in the phrases, in the current preference
state and in the history before the subtask, where aversions use plain negation ("no cilantro"); about one
history day in five is noise (orders for someone else with a ``note``, exploratory searches and browsing);
every user's preferences drift at least once (a named state after the drift, and its ``changes``).
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError, model_validator

from ..suite.errors import json_problem

TRAVEL_KINDS = ("hotel", "train", "flight")


def _iso_day(text: str) -> str:
    date.fromisoformat(text)  # raises ValueError with a readable message
    return text


IsoDay = Annotated[str, AfterValidator(_iso_day)]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# ------------------------------------------------------------------------------------------ dimensions


class PhraseDimension(_Frozen):
    """A preference shown by a phrase the target carries (``good``) and distractors replace (``bad``).

    ``good`` is ``None`` when the target simply carries none of the ``bad`` phrases: an aversion.
    """

    level: Literal["merchant", "product"]
    good: str | None
    bad: tuple[str, ...] = Field(min_length=1)
    rubric: str
    reason: str

    @model_validator(mode="after")
    def _distinct(self) -> PhraseDimension:
        # A distractor carrying the good phrase would be tagged right and judged wrong.
        if self.good in self.bad or len(set(self.bad)) != len(self.bad):
            raise ValueError(f"the bad phrases {list(self.bad)} must differ from each other and from {self.good!r}")
        return self


class MinScoreDimension(_Frozen):
    """A remembered rating floor on the merchant."""

    level: ClassVar[str] = "merchant"
    min_score: float
    rubric: str
    reason: str


class MaxPriceDimension(_Frozen):
    """A remembered price cap on the product."""

    level: ClassVar[str] = "product"
    max_price: float
    rubric: str
    reason: str


def _first_key(*keys: str, default: str | None = None) -> Any:
    """A discriminator: the first of ``keys`` the value has (a spec entry's kind is the key it carries)."""
    def tag(value: Any) -> str | None:
        present = value if isinstance(value, dict) else vars(value)
        return next((key for key in keys if key in present), default)
    return tag


Dimension = Annotated[
    Annotated[PhraseDimension, Tag("phrase")] | Annotated[MinScoreDimension, Tag("min_score")]
    | Annotated[MaxPriceDimension, Tag("max_price")],
    Discriminator(_first_key("min_score", "max_price", default="phrase")),
]


# ------------------------------------------------------------------------------------------ history


class _Entry(_Frozen):
    """A behaviour; its VitaBench 2.0 record's ``content`` is its fields under their serialisation aliases."""

    def record(self) -> dict[str, Any]:
        kind = next(iter(type(self).model_fields))  # the spec key is the record's ``behavior_type``
        return {"behavior_type": kind, "content": self.content()}

    def content(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True)


class OrderEntry(_Entry):
    order: str  # the merchant's name
    scenario: str
    items: tuple[tuple[str, int | float, int], ...] = Field(min_length=1)  # (product name, price, quantity)
    tags: tuple[str, ...] = ()
    note: str = ""

    def content(self) -> dict[str, Any]:
        content: dict[str, Any] = {"scenario": self.scenario, "merchant_name": self.order, "tags": list(self.tags),
                                   "items": [{"product_name": n, "price": p, "quantity": q} for n, p, q in self.items]}
        return content | ({"note": self.note} if self.note else {})


class ReviewEntry(_Entry):
    review: int = Field(ge=1, le=5, serialization_alias="rating")
    text: str


class SearchEntry(_Entry):
    search: str = Field(serialization_alias="keyword")


class BrowseEntry(_Entry):
    browse: str = Field(serialization_alias="topic")


Behaviour = Annotated[
    Annotated[OrderEntry, Tag("order")] | Annotated[ReviewEntry, Tag("review")]
    | Annotated[SearchEntry, Tag("search")] | Annotated[BrowseEntry, Tag("browse")],
    Discriminator(_first_key("order", "review", "search", "browse"), custom_error_type="behaviour",
                  custom_error_message="a behaviour has one of the keys order, review, search, browse"),
]


class HistoryDay(_Frozen):
    """One day of the user's history: what they did, then what they said (user turn first)."""

    date: IsoDay
    behavior: tuple[Behaviour, ...] = ()
    chat: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _not_empty(self) -> HistoryDay:
        if not self.behavior and not self.chat:
            raise ValueError("a history day needs a behavior or a chat")
        return self


# ------------------------------------------------------------------------------------------ subtasks, users


class PreferenceChange(_Frozen):
    """One entry of ``preference_tag_change_history``: a tag added, modified or deleted on a day."""

    date: IsoDay
    type: Literal["add", "modify", "delete"]
    category: str
    old: str | None = None
    new: str | None = None

    @model_validator(mode="after")
    def _tags(self) -> PreferenceChange:
        wanted = {"add": ("new",), "modify": ("old", "new"), "delete": ("old",)}[self.type]
        given = tuple(name for name in ("old", "new") if getattr(self, name) is not None)
        if given != wanted:
            raise ValueError(f"a {self.type} change has {' and '.join(wanted)}, not {' and '.join(given) or 'none'}")
        return self

    def record(self) -> dict[str, str]:
        return self.model_dump(exclude_none=True)


class SubtaskSpec(_Frozen):
    """One subtask before expansion."""

    kind: Literal["delivery", "instore_product", "reservation", "hotel", "train", "flight"]
    task: str  # the VitaBench 2.0 ``task`` label
    day: IsoDay  # ``current_time``
    clock: str = Field(pattern=r"^\d\d:\d\d:\d\d$")  # time of day of the environment
    instruction: str
    intention: str = ""  # proactive subtasks: the fact only the user knows (``user_intention``)
    destination: str | None = None  # travel: the destination city
    stations: tuple[str, str] | None = None  # trains and flights: departure and arrival station or airport
    travel_date: IsoDay | None = None  # travel: the night or day the booking is for
    visit_time: str | None = Field(default=None, pattern=r"^\d{4}-\d\d-\d\d \d\d:\d\d$")  # reservation
    party: int | None = Field(default=None, ge=1)  # reservation: customer count
    quantity: int | None = Field(default=None, ge=1)  # a total quantity rubric
    address: Literal["home", "work"] | None = None  # a delivery address rubric
    merchants: tuple[str, ...] = Field(min_length=4)  # popular first, target second, then the others
    items: tuple[str, ...] = Field(min_length=1)  # product names; ``{}`` is filled with the product phrases
    name_dims: int = Field(default=1, ge=0)  # how many product phrases go into a name (the rest in brackets)
    merchant_tags: tuple[str, ...] = ()
    product_tags: tuple[str, ...] = ()
    price: tuple[int, int]  # the product price range
    dimensions: tuple[Dimension, ...] = Field(min_length=1)
    popular_breaks: int = Field(ge=0)  # the dimension the best-rated ("popular") distractor breaks
    preferences: str  # the name of the user's preference state that is current at this subtask
    changes: tuple[PreferenceChange, ...] = ()  # ``preference_tag_change_history`` since the previous subtask
    history: tuple[HistoryDay, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> SubtaskSpec:
        if self.popular_breaks >= len(self.dimensions):
            raise ValueError(f"popular_breaks {self.popular_breaks} names no dimension "
                             f"(there are {len(self.dimensions)})")
        if self.price[0] > self.price[1]:
            raise ValueError(f"price range {list(self.price)} is empty")
        if self.kind in TRAVEL_KINDS and not (self.destination and self.travel_date):
            raise ValueError(f"a {self.kind} subtask needs destination and travel_date")
        if self.kind in ("train", "flight") and not self.stations:
            raise ValueError(f"a {self.kind} subtask needs stations (departure, arrival)")
        if self.kind == "reservation" and not (self.visit_time and self.party):
            raise ValueError("a reservation subtask needs visit_time and party")
        if any(change.date >= self.day for change in self.changes):
            raise ValueError(f"preference changes must come before the subtask's day {self.day}")
        days = [entry.date for entry in self.history]
        if days != sorted(days) or days[-1] >= self.day:
            raise ValueError(f"history days must be in order and before the subtask's day {self.day}")
        return self


class UserSpec(_Frozen):
    """One user: the profile, home and work coordinates, named preference states and the subtasks."""

    profile: dict[str, Any]
    home: tuple[float, float]
    work: tuple[float, float]
    start: IsoDay  # the first subtask's ``start_date``
    preferences: dict[str, dict[str, tuple[str, ...]]] = Field(min_length=1)
    subtasks: tuple[SubtaskSpec, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> UserSpec:
        missing = [k for k in ("user_id", "city", "home_address", "work_address") if not self.profile.get(k)]
        if missing:
            raise ValueError(f"profile lacks {', '.join(missing)}")
        for n, sub in enumerate(self.subtasks, 1):
            if sub.preferences not in self.preferences:
                raise ValueError(f"subtask {n} names the preference state {sub.preferences!r}; "
                                 f"the user has {sorted(self.preferences)}")
        days = [self.start] + [sub.day for sub in self.subtasks]
        if days != sorted(days):
            raise ValueError("subtask days must be in order and after start")
        return self

    @property
    def user_id(self) -> str:
        return str(self.profile["user_id"])


class CuratedSpec(_Frozen):
    """A whole curated suite."""

    format: Literal["vitabench-curated-spec/1"]
    seed: str
    about: str = ""
    users: tuple[UserSpec, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_users(self) -> CuratedSpec:
        ids = [user.user_id for user in self.users]
        if len(ids) != len(set(ids)):
            raise ValueError(f"user ids repeat: {sorted(i for i in set(ids) if ids.count(i) > 1)}")
        return self


# ------------------------------------------------------------------------------------------ loading


class SpecError(ValueError):
    """A curated spec that cannot be used, with each problem located by its JSON path."""

    def __init__(self, path: str | Path, problems: list[tuple[str, str]]):
        self.path = str(path)
        self.problems = problems
        super().__init__("\n".join([f"{self.path}: invalid curated suite spec"]
                                   + [f"  at {where or '<root>'}: {problem}" for where, problem in problems]))


#: The fields holding discriminated unions: pydantic puts the member's tag after the index.
_UNIONS = ("dimensions", "behavior")


def _json_path(loc: tuple[int | str, ...]) -> str:
    """``("users", 0, "subtasks", 2)`` as ``users[0].subtasks[2]``, without pydantic's union tags."""
    parts = [part for k, part in enumerate(loc)
             if not (k >= 2 and loc[k - 2] in _UNIONS and isinstance(loc[k - 1], int))]
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts).removeprefix(".")


def parse_spec(data: Any, path: str | Path = "<spec>") -> CuratedSpec:
    """Validate decoded JSON as a curated spec; raises :class:`SpecError`."""
    try:
        return CuratedSpec.model_validate(data)
    except ValidationError as exc:
        problems = [(_json_path(error["loc"]), "required field is missing" if error["type"] == "missing" else
                     error["msg"].removeprefix("Value error, ")) for error in exc.errors(include_url=False)]
        raise SpecError(path, problems) from None


def load_spec(path: str | Path) -> CuratedSpec:
    """Read and validate a curated spec file; raises :class:`SpecError` for a missing, non-JSON or bad file."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(source, [("", f"cannot read the file: {exc}")]) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpecError(source, [("", f"not JSON: {json_problem(exc)}")]) from None
    return parse_spec(data, source)

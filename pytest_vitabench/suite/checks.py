"""Machine checks for rubrics: the data half (the ``rules`` judge evaluates them).

The VitaBench 2.0 ``tasks.json`` states rubrics as plain strings that only an LLM judge can read. Our suites
add a subtask-level extension field, ``rubric_checks``, that pairs a rubric's exact text with a check the
``rules`` judge runs deterministically against the final environment state and the trajectory. The
VitaBench 2.0 loader ignores unknown subtask keys, so a suite with checks still loads there.

Example::

    "rubric_checks": [
      {"rubric": "The dessert must not contain durian",
       "check": {"kind": "record", "record_type": "delivery",
                 "where": {"product_ids": {"disjoint": ["P17", "P18"]}}}},
      {"rubric": "The agent asks which day the user wants to travel",
       "check": {"kind": "asked", "pattern": "which (day|date)|when"}}
    ]

Check kinds:

* ``record``: some record the agent created during the episode (an order, a reservation or a table
  booking, never one already in the initial database), not cancelled, of ``record_type``, satisfies
  every condition in ``where``. Record fields are described in :data:`RECORD_FIELDS`.
* ``no_record``: the agent created no (uncancelled) record of ``record_type`` (any type when omitted).
* ``asked`` / ``said``: some assistant text message sent to the user matches the regular expression
  ``pattern`` (case-insensitive). ``asked`` additionally requires a question mark in that message.
* ``tool_called``: the agent called tool ``name``, with arguments matching ``where`` when given.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: Record types: the order types of the domains' data plus instore ``reservation`` and ``book``.
RecordType = Literal[
    "delivery", "instore", "hotel", "attraction", "flight", "train", "taxi", "reservation", "book"
]

#: The fields a ``record`` check may test, by meaning. Every record has ``record_type``, ``record_id``,
#: ``entity_id`` (store / shop / hotel / attraction / flight / train / taxi id), ``status``,
#: ``product_ids`` (list), ``quantities`` (list, same order), ``total_quantity``, ``total_price``,
#: ``create_time``. Orders add ``address``, ``dispatch_time``, ``delivery_time``, ``note``, ``attributes``
#: (list), ``dates`` (list of product dates, ota). Reservations and bookings add ``time`` and
#: ``customer_count``.
RECORD_FIELDS = (
    "record_type record_id entity_id status product_ids quantities total_quantity total_price create_time "
    "address dispatch_time delivery_time note attributes dates time customer_count"
).split()

OPERATORS = ("eq", "ne", "in", "not_in", "contains", "not_contains", "includes_all", "includes_any",
             "disjoint", "subset_of", "between", "gte", "lte")


class Condition(BaseModel):
    """Conditions on one field; all given operators must hold.

    ``eq``/``ne``: equality. ``in``/``not_in``: the value is (not) one of a list. ``contains`` /
    ``not_contains``: case-insensitive substring of a string (for a list: of any element).
    ``includes_all`` / ``includes_any`` / ``disjoint`` / ``subset_of``: a list field against a list.
    ``between`` [lo, hi], ``gte``, ``lte``: numbers, or ISO times compared as strings.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    eq: Any = None
    ne: Any = None
    in_: list[Any] | None = Field(default=None, alias="in")
    not_in: list[Any] | None = None
    contains: str | None = None
    not_contains: str | None = None
    includes_all: list[Any] | None = None
    includes_any: list[Any] | None = None
    disjoint: list[Any] | None = None
    subset_of: list[Any] | None = None
    between: tuple[Any, Any] | None = None
    gte: Any = None
    lte: Any = None

    @model_validator(mode="after")
    def _not_empty(self) -> Condition:
        if not self.model_fields_set:
            raise ValueError(f"a condition needs at least one operator of {', '.join(OPERATORS)}")
        return self


class RecordCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["record"]
    record_type: RecordType
    where: dict[str, Condition] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known_fields(self) -> RecordCheck:
        unknown = sorted(set(self.where) - set(RECORD_FIELDS))
        if unknown:
            raise ValueError(f"unknown record field(s) {unknown}; known: {', '.join(RECORD_FIELDS)}")
        return self


class NoRecordCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["no_record"]
    record_type: RecordType | None = None


class TextCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["asked", "said"]
    pattern: str


class ToolCalledCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["tool_called"]
    name: str
    where: dict[str, Condition] = Field(default_factory=dict)


Check = Annotated[RecordCheck | NoRecordCheck | TextCheck | ToolCalledCheck, Field(discriminator="kind")]


class RubricCheck(BaseModel):
    """A rubric's exact text and the machine check that decides it."""

    model_config = ConfigDict(extra="forbid")

    rubric: str
    check: Check

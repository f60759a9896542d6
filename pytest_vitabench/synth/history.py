"""Turn a user plan into a dated history of dialogues and behaviour logs (paper A.1.3, A.1.4, C.2.3).

What goes in, in this order, so every constraint holds by construction:

1. evidence: each preference is stated (or shown by orders and reviews) when it begins, changes or ends,
   and every preference a subtask decides on has readable evidence dated after its current value began
   and before the subtask;
2. misleading noise: for the decisive preferences the plan marks, an impulsive purchase, a corrective
   complaint or an order for someone else that is not labelled as such, dated after the last time the
   user spoke against that option, and sometimes a later "that was a one-off" that puts it right;
3. routine life up to the planned sizes: orders consistent with the preferences held that day, reviews,
   searches, browsing, favourites, small talk, and about 20% noise (exploratory searches, orders for
   relatives and colleagues, unrelated browsing).

Nothing in the history contradicts the profile: no one orders their allergen for themselves, proxies are
people the profile has. Each event is recorded with its noise kind (or none) so the validator can count
the noise share; the annotation never reaches an agent.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from .catalog import AIRLINE_NAMES, AXIS, FAMILIES, NAME_PREFIXES, Family
from .plan import Pref, SubPlan, UserPlan, allowed_values, distinct_families
from .rng import stream
from .vocab import title_case

_IRRELEVANT = ("phone cases", "weather forecast", "parking near the mall", "bus route 42", "umbrella deals",
               "power banks", "laundry detergent", "printer ink", "running shoes", "desk lamps", "wall calendars",
               "cable organisers", "travel adapters", "screen protectors", "yoga mats")
_ACKS = ("Sure, noted.", "Got it.", "Okay, I'll remember that.", "Noted, thanks for telling me.",
         "Understood.", "Of course.")


@dataclass
class Event:
    """One behaviour or one conversation on a day."""

    day: date
    seq: int
    kind: str  # behaviour type, or "dialogue"
    content: Any
    noise: str = ""


@dataclass
class _State:
    plan: UserPlan
    rng: random.Random
    forbidden: set[date]  # the subtasks' days: the history has nothing on them
    events: list[Event] = field(default_factory=list)
    negative: dict[str, date] = field(default_factory=dict)  # phrase -> last day the user spoke against it
    dialogue_days: set[date] = field(default_factory=set)

    def add(self, day: date, kind: str, content: Any, noise: str = "") -> None:
        """One more event; its ``seq`` is its place in the order of insertion, from 1."""
        self.events.append(Event(day, len(self.events) + 1, kind, content, noise))
        if kind == "dialogue":
            self.dialogue_days.add(day)


def build_history(seed: int, plan: UserPlan) -> list[Event]:
    """Every event of a user's history, sorted by day (then by insertion)."""
    state = _State(plan=plan, rng=stream(seed, "history", plan.person.user_id),
                   forbidden={s.day for s in plan.subtasks})
    _statements(state)
    _guarantee_evidence(state)
    _misleading(state)
    _routine(state)
    events = [e for e in state.events if e.day not in state.forbidden and e.day < plan.end]
    events.sort(key=lambda e: (e.day, e.seq))
    return events


# ------------------------------------------------------------------------------------------ helpers


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _say(state: _State, day: date, user: str, assistant: str | None = None, noise: str = "") -> None:
    turns = [{"role": "user", "content": user},
             {"role": "assistant", "content": assistant or state.rng.choice(_ACKS)}]
    state.add(day, "dialogue", turns, noise)


def _free_day(state: _State, low: date, high: date, avoid_dialogue: bool = False) -> date | None:
    """A random day in ``[low, high]`` (not a subtask day, preferably without a conversation)."""
    if high < low:
        return None
    span = (high - low).days
    for _ in range(12):
        day = low + timedelta(days=state.rng.randint(0, span))
        if day not in state.forbidden and not (avoid_dialogue and day in state.dialogue_days):
            return day
    days = (low + timedelta(days=offset) for offset in range(span + 1))
    return next((day for day in days if day not in state.forbidden), None)


def _merchant(state: _State, family: Family) -> str:
    if family.kind == "train":
        return "12306 Rail"
    if family.kind == "flight":
        return state.rng.choice(AIRLINE_NAMES)
    return f"{state.rng.choice(NAME_PREFIXES)} {state.rng.choice(family.suffixes)}"


def _active_values(plan: UserPlan, family: Family, day: date) -> list[tuple[str, str]]:
    """(axis, value) of the user's liked values on this family's axes that day (never conditional ones)."""
    return [(pref.axis, value) for pref in plan.prefs
            if pref.kind == "value" and pref.axis in family.axes and pref.active(day)
            and (value := pref.value_at(day)) in family.values.get(pref.axis, AXIS[pref.axis].values)]


def _order(state: _State, family: Family, values: list[tuple[str, str]], day: date, note: str = "",
           noise: str = "") -> None:
    """An order behaviour whose tags and item name carry ``values``."""
    rng, city = state.rng, state.plan.person.city
    product_values = [v for a, v in values if AXIS[a].level == "product"]
    price = float(rng.randint(*family.price))
    if family.kind in ("train", "flight"):
        dest = rng.choice([c for c in ("Beijing", "Shanghai", "Chengdu", "Wuhan", "Xiamen", "Nanjing") if c != city])
        number = f"{'G' if family.kind == 'train' else 'MU'}{rng.randint(100, 9899)}"
        seat = product_values[0] if product_values else ""
        item = f"{number} {city}-{dest} {seat}".strip()
    elif family.kind == "hotel":
        item = ", ".join(["Room"] + [title_case(v) for v in product_values])
    else:
        base = rng.choice(family.items) if family.items else family.noun
        item = f"{title_case(product_values[0])} {base}" if product_values else base
    content: dict[str, Any] = {"scenario": family.kind if family.kind != "instore_product" else "instore",
                               "merchant_name": _merchant(state, family),
                               "tags": list(family.tags) + [v for _, v in values],
                               "items": [{"product_name": item, "price": price, "quantity": 1}]}
    if note:
        content["note"] = note
    state.add(day, "order", content, noise)


def _statement(pref: Pref, value: str, rng: random.Random) -> str:
    axis = AXIS.get(pref.axis)
    if pref.kind == "floor":
        return rng.choice((f"Only pick merchants rated at least {value}, the cheaper places keep getting it wrong.",
                           f"I only trust places rated {value} or above.",
                           f"Please stick to shops rated at least {value} for me."))
    if pref.kind == "background":
        return rng.choice((f"I've been really into {value} lately.", f"Honestly, {value} is my thing.",
                           f"I love {value}."))
    assert axis is not None
    template = rng.choice(axis.say)
    return template.format(value=value, Value=_cap(value), scope=axis.scope, cond=pref.cond).replace("  ", " ")


# ------------------------------------------------------------------------------------------ 1. statements


def _statements(state: _State) -> None:
    """Additions, modifications and deletions as the user voices them (or shows them)."""
    plan, rng = state.plan, state.rng
    for pref in plan.prefs:
        for index, version in enumerate(pref.versions):
            if pref.initial and index == 0:
                if pref.kind != "background":
                    _implicit(state, pref, version.value, version.start, version.start + timedelta(days=60))
                continue
            day = _free_day(state, version.start, version.start + timedelta(days=3), avoid_dialogue=True)
            if day is None:
                continue
            if version.explicit and index > 0 and pref.kind == "value":
                old = pref.versions[index - 1].value
                _say(state, day, rng.choice((f"I've switched from {old} to {version.value}.",
                                             f"No more {old} for me, {version.value} from now on.")),
                     f"Noted: {version.value} from now on.")
                state.negative[old] = max(state.negative.get(old, day), day)
            elif version.explicit or pref.kind in ("aversion", "floor", "conditional"):
                _say(state, day, _statement(pref, version.value, rng))
                if pref.kind == "aversion":
                    state.negative[version.value] = day
            else:
                _implicit(state, pref, version.value, day, day + timedelta(days=20))
        if pref.end is not None and pref.end_explicit:
            day = _free_day(state, pref.end, pref.end + timedelta(days=3), avoid_dialogue=True)
            if day is not None:
                _say(state, day, _retraction(pref))
    if plan.person.moved_from and plan.person.moved_year:
        day = _free_day(state, date(plan.person.moved_year, 3, 1), date(plan.person.moved_year, 9, 30))
        if day is not None and plan.start < day < plan.subtasks[0].day:
            _say(state, day, f"I just moved to {plan.person.city} from {plan.person.moved_from}, new city, new "
                             "routines.", "Welcome to your new home! I'll look for places near you.")


def _retraction(pref: Pref) -> str:
    value = pref.versions[-1].value
    if pref.kind == "aversion":
        return f"{_cap(value)} is fine now, I've gotten used to it."
    if pref.kind == "background":
        return f"I've lost interest in {value} these days."
    if pref.kind in ("value", "conditional") and (axis := AXIS.get(pref.axis)) is not None:
        return f"Honestly, any option is fine for {axis.scope or 'that'} these days."
    return "I've stopped caring about that."


def _implicit(state: _State, pref: Pref, value: str, low: date, high: date) -> None:
    """Evidence without words: an order carrying the value, often followed by a good review."""
    if pref.kind == "background" and (day := _free_day(state, low, high)) is not None:
        state.add(day, "browse", {"topic": value})
    if pref.kind != "value":
        return
    family = next((f for f in distinct_families(state.plan.subtasks) if pref.axis in f.axes
                   and value in f.values.get(pref.axis, AXIS[pref.axis].values)), None)
    if family is None or (day := _free_day(state, low, high)) is None:
        return
    values = [(a, v) for a, v in _active_values(state.plan, family, day) if a != pref.axis] + [(pref.axis, value)]
    _order(state, family, values, day)
    if state.rng.random() < 0.6:
        state.add(day, "review", {"rating": 5, "text": f"{_cap(value)}, exactly how I like it."})


# ------------------------------------------------------------------------------------------ 2. evidence


def _guarantee_evidence(state: _State) -> None:
    """Every decisive preference has readable evidence after its current value began, before the subtask."""
    plan, rng = state.plan, state.rng
    previous = plan.start - timedelta(days=1)
    for sub in plan.subtasks:
        for pref in sub.prefs:
            version = pref.version_at(sub.day)
            assert version is not None, (plan.person.user_id, sub.n, pref.pid)
            low = max(version.start, previous + timedelta(days=1) - timedelta(days=120))
            high = sub.day - timedelta(days=1)
            if _has_evidence(state, pref, version.value, version.start, sub.day) and rng.random() < 0.5:
                continue  # fragmented: sometimes one more piece, sometimes not
            if (day := _free_day(state, low, high)) is None:
                continue
            if pref.kind == "value" and rng.random() < 0.7:
                values = [(a, v) for a, v in _active_values(plan, sub.family, day) if a != pref.axis]
                _order(state, sub.family, values + [(pref.axis, version.value)], day)
                if rng.random() < 0.5:
                    state.add(day, "review", {"rating": rng.choice((4, 5)),
                                              "text": f"The {version.value} one was great."})
            elif pref.kind == "aversion" and rng.random() < 0.5:
                kind = rng.choice(("complaint", "review"))
                text = f"There was {version.value} in my {sub.family.noun} again, please check next time."
                state.add(day, kind, {"text": text} if kind == "complaint" else {"rating": 2, "text": text})
            else:
                _say(state, day, _statement(pref, version.value, rng))
            if pref.kind == "aversion":
                state.negative[version.value] = max(state.negative.get(version.value, day), day)
        previous = sub.day


def _has_evidence(state: _State, pref: Pref, value: str, low: date, high: date) -> bool:
    needle = value.lower()
    return any(needle in (text := str(event.content).lower()) and (pref.kind != "conditional" or pref.cond in text)
               for event in state.events if not event.noise and low <= event.day < high)


# ------------------------------------------------------------------------------------------ 3. misleading


def _misleading(state: _State) -> None:
    """Noise that a literal reader of the history takes for a preference (paper C.2.3)."""
    plan, rng = state.plan, state.rng
    previous = plan.start
    for index, sub in enumerate(plan.subtasks):
        for pid in sub.misleading:
            pref = next(p for p in plan.prefs if p.pid == pid)
            good = pref.value_at(sub.day)
            if pref.kind == "aversion":
                bad = good
            elif pref.kind == "conditional":
                bad = next((p.value_at(sub.day) for p in plan.prefs
                            if p.axis == pref.axis and p is not pref and p.active(sub.day)),
                           next(v for v in AXIS[pref.axis].values if v != good))
            else:
                options = [v for v in allowed_values(AXIS[pref.axis], sub.family, plan.person) if v != good]
                if not options:
                    continue
                bad = rng.choice(options)
            low = max(previous + timedelta(days=1), state.negative.get(bad, date.min) + timedelta(days=1))
            if (day := _free_day(state, low, sub.day - timedelta(days=1))) is None:
                continue
            _poison(state, sub, pref, good, bad, day)
            if rng.random() < 0.45 and index + 1 < len(plan.subtasks):
                later = plan.subtasks[index + 1]
                cure_day = _free_day(state, sub.day + timedelta(days=1), later.day - timedelta(days=1))
                if cure_day is not None and pref.kind != "aversion":
                    _say(state, cure_day, f"No more {bad} for me, that was a one-off.")
                    state.negative[bad] = cure_day
        previous = sub.day


def _poison(state: _State, sub: SubPlan, pref: Pref, good: str, bad: str, day: date) -> None:
    rng = state.rng
    family = sub.family
    relation = rng.choice(state.plan.person.relations)
    if pref.kind == "aversion":
        _say(state, day, f"Tried {bad} in my {family.noun} today, actually not bad.", noise="impulsive")
        return
    style = rng.choice(("impulsive", "corrective", "hidden_proxy"))
    if style == "impulsive":
        values = [(a, v) for a, v in _active_values(state.plan, family, day) if a != pref.axis] + [(pref.axis, bad)]
        _order(state, family, values, day, noise="impulsive")
        if rng.random() < 0.5:
            _say(state, day, f"Felt like {bad} today, just this once.", noise="impulsive")
    elif style == "corrective":
        _say(state, day, f"They sent me {bad} instead of {good}, so annoying.",
             "Sorry about that, I'll flag it to the merchant.", noise="corrective")
    else:
        _say(state, day, f"My {relation} wanted the {bad} one, so I got that this time.", noise="hidden_proxy")


# ------------------------------------------------------------------------------------------ 4. routine


def _routine(state: _State) -> None:
    """Fill the history up to its planned size with everyday behaviour and about 20% noise."""
    plan, rng = state.plan, state.rng
    families = distinct_families(plan.subtasks) + [f for f in FAMILIES if f.kind == "delivery" and f.needs == ""][:4]
    budget = max(0, plan.events - len(state.events))
    noise = max(0, round(plan.events * plan.noise_share) - sum(1 for e in state.events if e.noise))
    orders = max(0, plan.orders - sum(1 for e in state.events if e.kind == "order"))
    span = (plan.end - plan.start).days
    for kind in _routine_kinds(rng, budget, noise, orders):
        day = plan.start + timedelta(days=rng.randint(0, span - 1))
        if day in state.forbidden:
            day += timedelta(days=1)
        _routine_event(state, kind, rng.choice(families), day)


def _routine_kinds(rng: random.Random, budget: int, noise: int, orders: int) -> list[str]:
    noise = min(noise, budget)
    proxy = round(noise * 0.3)
    explore = round(noise * 0.45)
    irrelevant = noise - proxy - explore
    orders = min(max(0, orders - proxy), budget - noise)
    rest = budget - noise - orders
    weights = {"review": 0.16, "search": 0.3, "browse": 0.24, "high_freq_browse": 0.06, "add_to_cart": 0.07,
               "favorite": 0.05, "dialogue": 0.12}
    signal = [name for name, share in weights.items() for _ in range(round(rest * share))]
    signal = (signal + ["search"] * rest)[:rest]
    kinds = (["proxy"] * proxy + ["explore"] * explore + ["irrelevant"] * irrelevant + ["order"] * orders + signal)
    rng.shuffle(kinds)
    return kinds


def _routine_event(state: _State, kind: str, family: Family, day: date) -> None:
    plan, rng = state.plan, state.rng
    values = _active_values(plan, family, day)
    if kind == "order":
        _order(state, family, values, day)
    elif kind == "proxy":
        relation = rng.choice(plan.person.relations)
        swapped = []
        for axis, value in values:
            others = [v for v in family.values.get(axis, AXIS[axis].values) if v != value]
            swapped.append((axis, rng.choice(others) if others and rng.random() < 0.7 else value))
        note = rng.choice((f"for my {relation}", f"gift for my {relation}", f"ordered for my {relation}"))
        _order(state, family, swapped, day, note=note, noise="proxy")
    elif kind == "explore":
        axis_values = [v for a in family.axes for v in family.values.get(a, AXIS[a].values)]
        word = rng.choice(axis_values) if axis_values else ""
        what = f"{word} {family.noun}".strip()
        state.add(day, rng.choice(("search", "browse")),
                  {"keyword": what} if rng.random() < 0.5 else {"topic": what}, "exploratory")
    elif kind == "irrelevant":
        topic = rng.choice(_IRRELEVANT)
        state.add(day, rng.choice(("browse", "search", "high_freq_browse")),
                  {"topic": topic} if rng.random() < 0.6 else {"keyword": topic}, "irrelevant")
    elif kind == "review":
        if values and rng.random() < 0.7:
            value = rng.choice(values)[1]
            text = rng.choice((f"Great {family.noun}, the {value} was perfect.", f"{_cap(value)}, just right.",
                               f"Loved it, {value} as always."))
            state.add(day, "review", {"rating": rng.choice((4, 5)), "text": text})
        else:
            state.add(day, "review", {"rating": rng.choice((3, 4, 5)),
                                      "text": rng.choice(("Fast delivery.", "Good value.", "It was okay.",
                                                          "Friendly staff.", "Arrived on time."))})
    elif kind in ("search", "browse", "high_freq_browse"):
        value = rng.choice(values)[1] if values and rng.random() < 0.6 else ""
        what = f"{value} {family.noun}".strip()
        state.add(day, kind, {"keyword": what} if kind == "search" else {"topic": what})
    elif kind == "add_to_cart":
        product = title_case(values[0][1]) + " " + (family.items[0] if family.items else family.noun) if values else \
            (family.items[0] if family.items else family.noun)
        state.add(day, "add_to_cart", {"product_name": product, "merchant_name": _merchant(state, family)})
    elif kind == "favorite":
        state.add(day, "favorite", {"merchant_name": _merchant(state, family)})
    else:
        _small_talk(state, family, values, day)


def _small_talk(state: _State, family: Family, values: list[tuple[str, str]], day: date) -> None:
    rng = state.rng
    if values and rng.random() < 0.6:
        axis, value = rng.choice(values)
        pref = next(p for p in state.plan.prefs if p.axis == axis and p.kind == "value" and p.active(day))
        _say(state, day, _statement(pref, value, rng), f"Done, I ordered your {family.noun} with {value}.")
        return
    backgrounds = [p for p in state.plan.prefs if p.kind == "background" and p.active(day)]
    if backgrounds and rng.random() < 0.5:
        pref = rng.choice(backgrounds)
        _say(state, day, _statement(pref, pref.value_at(day), rng))
        return
    _say(state, day, rng.choice((f"Any good {family.noun} deals this week?", "What's the weather like tomorrow?",
                                 f"Can you remind me what I ordered last time from the {family.noun} place?",
                                 "Is my last order on its way?")),
         rng.choice(("Let me check that for you.", "Here is what I found.", "It should arrive soon.")))


# ------------------------------------------------------------------------------------------ shapes


def records(events: list[Event], shape: str, rng: random.Random) -> tuple[list[dict[str, Any]], list[list[Any]]]:
    """The events as interaction records of one shape, and the noise annotation ``[record, item, kind]``.

    ``daily`` gives ``{date, behavior, dialogue}`` per day (conversations of a day merge into one
    dialogue, item ``-1``); ``event`` gives one ``{type, timestamp, content}`` per event (item ``0``).
    """
    out: list[dict[str, Any]] = []
    noise: list[list[Any]] = []
    if shape == "event":
        clock: dict[date, int] = {}
        for event in events:
            minute = clock.get(event.day, rng.randint(7 * 60, 10 * 60))
            minute = min(23 * 60 + 50, minute + rng.randint(5, 90))
            clock[event.day] = minute
            stamp = f"{event.day.isoformat()} {minute // 60:02d}:{minute % 60:02d}:00"
            kind = "conversation" if event.kind == "dialogue" else event.kind
            if event.noise:
                noise.append([len(out), 0, event.noise])
            out.append({"type": kind, "timestamp": stamp, "content": event.content})
        return out, noise
    by_day: dict[date, list[Event]] = {}
    for event in events:
        by_day.setdefault(event.day, []).append(event)
    for day in sorted(by_day):
        # A day's behaviour goes into its record; each conversation closes a record, so two conversations on
        # one day stay two events (and keep their own noise labels).
        behaviour: list[dict[str, Any]] = []
        pending: list[list[Any]] = []
        for event in by_day[day]:
            if event.kind == "dialogue":
                noise += [[len(out), item, kind] for item, kind in pending]
                if event.noise:
                    noise.append([len(out), -1, event.noise])
                out.append({"date": day.isoformat(), "behavior": behaviour, "dialogue": list(event.content)})
                behaviour, pending = [], []
            else:
                if event.noise:
                    pending.append([len(behaviour), event.noise])
                behaviour.append({"behavior_type": event.kind, "content": event.content})
        if behaviour:
            noise += [[len(out), item, kind] for item, kind in pending]
            out.append({"date": day.isoformat(), "behavior": behaviour, "dialogue": []})
    return out, noise

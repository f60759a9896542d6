"""Expand a curated spec (:mod:`.spec`) into a VitaBench 2.0 suite: the layout of a small, hand-written subtask.

A curated subtask names its merchants and the phrases that decide; this module lays them out so a
preference-aware agent can win and a literal one cannot:

* every candidate matches the literal request; exactly one (the target) satisfies every rubric, and it
  is never the best rated: a "popular" distractor rated 4.9 breaks the remembered preference the spec
  names (``popular_breaks``);
* every other distractor breaks one or two dimensions (one-constraint-off, as in the paper's §A.2.3);
* a merchant whose name mentions a decisive phrase (``Seafood``, ``Sichuan``) carries that phrase.

Records, rubric wordings and checks come from the generator's own builders (:mod:`.environment`,
:mod:`.rubrics`, :mod:`.generator`). What stays here differs in bytes on purpose: the layout (six merchants,
not the paper's 10-15), the ratings, the product names (the spec's item templates), the departure times and
the rubrics' order.

Determinism: each subtask draws from ``random.Random("<seed>:<user id>:<n>")``.

The demo suite is the spec ``specs/demo.json`` expanded; ``vitabench synth --preset demo`` writes it to
``suites/demo/tasks.json``, indented by one space so that a change to the spec shows as a readable diff.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from .catalog import KINDS
from .environment import (
    Slot,
    city_centre,
    departure,
    entity_body,
    environment_record,
    location,
    product_body,
    titled,
    transport_body,
)
from .generator import subtask_record, user_record
from .history import Event, records
from .rubrics import ASK_COUNT_OR_TIME, RubricBook
from .spec import (
    TRAVEL_KINDS,
    CuratedSpec,
    MaxPriceDimension,
    MinScoreDimension,
    PhraseDimension,
    SubtaskSpec,
    UserSpec,
    load_spec,
)
from .vocab import STREETS, title_case

_DimensionSpec = PhraseDimension | MinScoreDimension | MaxPriceDimension

#: The first streets of the shared list: curated addresses draw from these.
_CURATED_STREETS = STREETS[:10]
#: The hours a train or flight may leave at, by the departure tag it carries (24: one in the morning).
_DEPARTURES = {"morning departure": (8, 9), "afternoon departure": (13, 15), "evening departure": (18, 20),
               "red-eye": (23, 25), "": (10, 15)}
_SEAT_PRICE = {"first class": 1.6, "business class": 3.0, "business": 2.6}
_WEATHER = ("sunny", "cloudy", "light rain")
#: The demo suite's spec, and the committed file's indentation.
DEMO_SPEC = Path(__file__).resolve().parent / "specs" / "demo.json"
DEMO_INDENT = 1


def build_demo_suite() -> list[dict[str, Any]]:
    """The demo suite: a list of users in the VitaBench 2.0 ``tasks.json`` format."""
    return expand(load_spec(DEMO_SPEC))


def expand(spec: CuratedSpec) -> list[dict[str, Any]]:
    """The suite: a list of users in the VitaBench 2.0 ``tasks.json`` format."""
    return [user_record(user.user_id, user.profile, [expand_subtask(spec.seed, user, n)
                                                     for n in range(1, len(user.subtasks) + 1)])
            for user in spec.users]


# ------------------------------------------------------------------------------------------ layout
# A slot's ``breaks`` (and each of its products' breaks) map a dimension's index to the bad phrase the
# candidate carries instead (``"bad"`` for a rating floor or a price cap); a dimension it keeps is absent.


def _phrase(dim: _DimensionSpec, broken: str | None) -> str | None:
    """The phrase a candidate carries for a dimension it keeps (``broken`` is ``None``) or breaks."""
    return (dim.good if broken is None else broken) if isinstance(dim, PhraseDimension) else None


def _one_offs(sub: SubtaskSpec, level: str, rng: random.Random) -> list[dict[int, str]]:
    """Every way to break exactly one dimension of ``level``, shuffled."""
    offs = [{i: bad} for i, dim in enumerate(sub.dimensions) if dim.level == level
            for bad in (dim.bad if isinstance(dim, PhraseDimension) else ("bad",))]
    rng.shuffle(offs)
    return offs


def _layout(sub: SubtaskSpec, rng: random.Random) -> list[Slot]:
    """One slot per merchant: the target after the first three, the popular one among them, the rest off."""
    target_pos = rng.choice(range(3, len(sub.merchants)))
    popular_pos = rng.choice(range(0, 3))
    product_offs = _one_offs(sub, "product", rng)
    merchant_offs = _one_offs(sub, "merchant", rng)
    popular_dim = sub.dimensions[sub.popular_breaks]
    popular_bad = {sub.popular_breaks: popular_dim.bad[0] if isinstance(popular_dim, PhraseDimension) else "bad"}
    slots = []
    others = 0
    for pos in range(len(sub.merchants)):
        if pos == target_pos:
            slot = Slot("target")
            slot.products = [{}] + [product_offs[i % len(product_offs)] for i in range(2)] if product_offs else [{}]
        elif pos == popular_pos:
            slot = Slot("popular", breaks=popular_bad if popular_dim.level == "merchant" else {})
            hero = popular_bad if popular_dim.level == "product" else {}
            slot.products = [hero] + [off for off in product_offs if off != hero][:2]
        else:
            # With product dimensions, every other merchant is compliant (only its products are off);
            # otherwise each one breaks a merchant dimension.
            others += 1
            compliant = bool(product_offs) and others % 2 == 0
            slot = Slot("other", breaks={} if compliant or not merchant_offs else merchant_offs.pop(0))
            if not merchant_offs:
                merchant_offs = _one_offs(sub, "merchant", rng)
            # Breaking a merchant dimension, it may sell a product right in itself; compliant, it may not.
            slot.products = [{}] + product_offs[:1] if slot.breaks else product_offs[:2] or [{}]
            if len(product_offs) > 1 and (both := {**product_offs[0], **product_offs[-1]}) not in slot.products:
                slot.products.append(both)
        product_offs[:] = product_offs[1:] + product_offs[:1]
        rng.shuffle(slot.products)  # the target is not always a merchant's first product
        slots.append(slot)
    return slots


def _carried(sub: SubtaskSpec, slot: Slot) -> set[str]:
    """The merchant phrases (lower case) a slot's merchant carries."""
    return {phrase.lower() for i, dim in enumerate(sub.dimensions)
            if dim.level == "merchant" and (phrase := _phrase(dim, slot.breaks.get(i)))}


def _names(sub: SubtaskSpec, slots: list[Slot], label: str) -> list[str]:
    """The spec lists the popular merchant's name first, the target's second, then the others; a name
    that mentions a merchant phrase goes to a merchant that carries it."""
    phrases = {p.lower() for d in sub.dimensions if isinstance(d, PhraseDimension) and d.level == "merchant"
               for p in (d.good, *d.bad) if p}

    def fits(name: str, slot: Slot) -> bool:
        return {p for p in phrases if p in name.lower()} <= _carried(sub, slot)

    popular, target, *rest = sub.merchants
    names = {k: popular if slot.role == "popular" else target for k, slot in enumerate(slots) if slot.role != "other"}
    for k, name in names.items():
        if not fits(name, slots[k]):
            raise ValueError(f"{label}: the name {name!r} contradicts its tags {sorted(_carried(sub, slots[k]))}")
    for k, slot in enumerate(slots):
        if slot.role != "other":
            continue
        carried = _carried(sub, slot)
        names[k] = min(rest, key=lambda name: (not fits(name, slot), not any(p in name.lower() for p in carried)))
        rest.remove(names[k])
        if not fits(names[k], slot):
            raise ValueError(f"{label}: no merchant name fits one carrying {sorted(carried)}")
    winners = sum(1 for slot in slots for breaks in slot.products if not {**slot.breaks, **breaks})
    if winners != 1:
        raise ValueError(f"{label}: {winners} candidates satisfy every rubric")
    return [names[k] for k in range(len(slots))]


# ------------------------------------------------------------------------------------------ materialise


def expand_subtask(seed: str, user: UserSpec, n: int) -> dict[str, Any]:
    """Expand the ``n``-th (1-based) subtask of a user into a VitaBench 2.0 subtask dict."""
    sub = user.subtasks[n - 1]
    uid = user.user_id
    rng = random.Random(f"{seed}:{uid}:{n}")
    domain, record_type, container = KINDS[sub.kind]
    where = sub.destination or str(user.profile["city"])
    centre = city_centre(where) if sub.destination else user.home
    slots = _layout(sub, rng)
    names = _names(sub, slots, f"{uid} subtask {n}")

    entities: dict[str, dict[str, Any]] = {}
    satisfying: dict[int, list[str]] = {i: [] for i in range(len(sub.dimensions))}  # ids meeting each dimension
    target_entity = target_product = ""
    used_scores: set[float] = set()
    for index, (slot, name) in enumerate(zip(slots, names, strict=True)):
        eid = f"{'S' if domain != 'ota' else sub.kind[0].upper()}{uid[1:]}{n:02d}{index + 1:02d}"
        score = _score(sub, slot, rng, used_scores)
        tags = list(sub.merchant_tags)
        for i, dim in enumerate(sub.dimensions):
            if dim.level == "merchant":
                if phrase := _phrase(dim, slot.breaks.get(i)):
                    tags.append(phrase)
                if i not in slot.breaks and not isinstance(dim, MinScoreDimension):
                    satisfying[i].append(eid)
            if isinstance(dim, MinScoreDimension) and score >= dim.min_score:
                satisfying[i].append(eid)
        if slot.role == "popular":
            tags.append("popular")
        products = []
        for k, own in enumerate(slot.products):
            breaks = {**slot.breaks, **own}
            pid = f"P{uid[1:]}{n:02d}{index + 1:02d}{k + 1:02d}"
            product, reasons = _product(sub, breaks, rng, pid, k, index)
            for i, dim in enumerate(sub.dimensions):
                if dim.level == "product" and i not in breaks:
                    satisfying[i].append(pid)
            if slot.role == "target" and not breaks:
                target_product = pid
                product["product_type"] = "target"
            else:
                product["product_type"] = "distraction"
                product["distraction_reason"] = "; ".join([sub.dimensions[i].reason for i in slot.breaks] + reasons) \
                    or "not the target"
            products.append(product)
        if slot.role == "target":
            target_entity = eid
            if sub.kind in TRAVEL_KINDS:  # a date distractor: the target offer on the wrong day
                twin = dict(next(p for p in products if p["product_id"] == target_product))
                twin.update(product_id=twin["product_id"][:-2] + f"{len(products) + 1:02d}",
                            date=_shift(sub.travel_date or sub.day, 1), product_type="distraction",
                            distraction_reason="the wrong date")
                products.append(twin)
        entities[eid] = _entity(sub, domain, eid, name, score, tags, products, rng, where, centre, slot,
                                str(user.profile["city"]))
    weather = {"city": where, "category": rng.choice(_WEATHER), "datetime": sub.travel_date or sub.day,
               "temperature": [rng.randint(8, 18), rng.randint(20, 30)], "humidity": rng.randint(40, 85)}
    environment = environment_record(f"{sub.day} {sub.clock}", uid, weather, user.profile, user.home, user.work,
                                     container, entities)
    book = _rubrics(user, sub, record_type, satisfying)
    memory = {"current": {k: list(v) for k, v in user.preferences[sub.preferences].items()},
              "preference_tag_change_history": [change.record() for change in sub.changes]}
    return subtask_record(
        uid, n, domain=domain, task=sub.task, current_time=sub.day,
        start_date=user.start if n == 1 else user.subtasks[n - 2].day, end_date=_shift(sub.day, -1),
        instruction=sub.instruction, interactions=_interactions(sub), environment=environment,
        profile=user.profile, memory=memory, rubrics=book.texts, checks=book.checks,
        target_ids=[target_product] if sub.kind != "reservation" else [target_entity],
        skills=["proactive"] if sub.intention else ["personalize"], intention=sub.intention)


def _interactions(sub: SubtaskSpec) -> list[dict[str, Any]]:
    """The spec's history days as VitaBench 2.0 daily records (one record per day: its behaviour, then the chat)."""
    events: list[Event] = []
    for entry in sub.history:
        day = date.fromisoformat(entry.date)
        for behaviour in entry.behavior:
            record = behaviour.record()
            events.append(Event(day, len(events), record["behavior_type"], record["content"]))
        if entry.chat:
            turns = [{"role": "user" if i % 2 == 0 else "assistant", "content": text}
                     for i, text in enumerate(entry.chat)]
            events.append(Event(day, len(events), "dialogue", turns))
    interactions, _ = records(events, "daily", random.Random(0))  # the daily shape draws nothing
    return interactions


def _score(sub: SubtaskSpec, slot: Slot, rng: random.Random, used: set[float]) -> float:
    """Ratings: the popular merchant is the best rated; the target clears the floor; the others vary."""
    floor = next((d.min_score for d in sub.dimensions if isinstance(d, MinScoreDimension)), None)
    if slot.role == "popular":
        return 4.9
    if slot.role == "target":
        return 4.6 if floor is None or floor <= 4.6 else 4.8
    if any(isinstance(sub.dimensions[i], MinScoreDimension) for i in slot.breaks):
        pool = [4.0, 4.1, 4.2, 4.3, 4.4]
    else:
        pool = [4.5, 4.6, 4.7, 4.8] if floor is not None else [4.2, 4.4, 4.5, 4.7, 4.8]
    score = rng.choice([s for s in pool if s not in used] or pool)
    used.add(score)
    return score


def _product(sub: SubtaskSpec, breaks: dict[int, str], rng: random.Random, pid: str, k: int,
             index: int) -> tuple[dict[str, Any], list[str]]:
    """One product (dish, voucher, room, seat) with these breaks, and the reasons it is not right."""
    phrases: list[str] = []
    reasons: list[str] = []
    lo, hi = sub.price
    price = float(rng.randint(lo, hi))
    for i, dim in enumerate(sub.dimensions):
        if dim.level != "product":
            continue
        if i in breaks:
            reasons.append(dim.reason)
        if isinstance(dim, MaxPriceDimension):
            cap = int(dim.max_price)
            price = float(rng.randint(cap + 8, cap * 2) if i in breaks else rng.randint(lo, min(hi, cap)))
        elif phrase := _phrase(dim, breaks.get(i)):
            phrases.append(phrase)
    item = sub.items[(index + k) % len(sub.items)]
    if sub.kind == "hotel":
        return product_body("hotel", pid, titled(item, phrases), price, rng.randint(2, 6), day=sub.travel_date), reasons
    if sub.kind in ("train", "flight"):
        seat = phrases[0] if phrases else "economy"
        price = float(round(price * _SEAT_PRICE.get(seat, 1.0)))
        return product_body(sub.kind, pid, seat, price, rng.randint(5, 30), day=sub.travel_date), reasons
    # Dishes, drinks, vouchers: the leading phrases fill the item template; all phrases are tags.
    lead, rest = phrases[:sub.name_dims], phrases[sub.name_dims:]
    filler = " ".join(title_case(p) for p in lead)
    name = item.format(filler) if "{}" in item else f"{filler} {item}".strip()
    if rest:
        name += f" ({', '.join(rest)})"
    return product_body(sub.kind, pid, name, price, rng.randint(20, 99), tags=list(sub.product_tags) + phrases), reasons


def _entity(sub: SubtaskSpec, domain: str, eid: str, name: str, score: float, tags: list[str],
            products: list[dict[str, Any]], rng: random.Random, where: str, centre: tuple[float, float],
            slot: Slot, user_city: str) -> dict[str, Any]:
    """The merchant (store, shop, hotel) or the train or flight, marked and, off target, with its reason."""
    marker = "target" if slot.role == "target" else "distraction"
    if sub.kind == "reservation":
        for p in products:  # the menu is not what is decided in a reservation subtask
            p["product_type"] = "irrelevant"
            p.pop("distraction_reason", None)
    if sub.kind in ("train", "flight"):
        body = _transport(sub, eid, name, tags, products, rng, marker, user_city)
    else:
        body = entity_body(sub.kind, eid, name, score, location(rng, where, centre, _CURATED_STREETS), tags,
                           products, marker, enable_reservation=domain == "instore")
    if marker == "distraction":
        body["distraction_reason"] = "; ".join(sub.dimensions[i].reason for i in slot.breaks) or \
            "every product breaks a preference"
    return body


def _transport(sub: SubtaskSpec, eid: str, number: str, tags: list[str], products: list[dict[str, Any]],
               rng: random.Random, marker: str, origin: str) -> dict[str, Any]:
    """A train or a flight from the user's city to the destination, timed to match its tags."""
    hour, dep = departure(rng, _DEPARTURES[next((t for t in tags if t in _DEPARTURES), "")])
    arr = f"{(hour + (1 if sub.kind == 'train' else 3)) % 24:02d}:{dep[3:]}"
    return transport_body(rng, sub.kind, eid, number, (origin, sub.destination or ""), sub.stations or ("", ""),
                          (dep, arr), tags, products, marker, _CURATED_STREETS)


def _rubrics(user: UserSpec, sub: SubtaskSpec, record_type: str, satisfying: dict[int, list[str]]) -> RubricBook:
    book = RubricBook(record_type)
    if sub.intention:
        book.asked("the user for the missing details (how many people, or when) before deciding", ASK_COUNT_OR_TIME)
    for i, dim in enumerate(sub.dimensions):
        book.chosen(dim.rubric, dim.level, sorted(satisfying[i]))
    if sub.address:
        address = str(user.profile["home_address" if sub.address == "home" else "work_address"])
        book.delivered_to(sub.address, address, address.split(", ")[-3] if address.count(", ") >= 3 else address)
    if sub.quantity:
        book.total(sub.quantity)
    if sub.travel_date:
        what = "night" if sub.kind == "hotel" else "travel date"
        book.add(f"The booking is for the {what} of {sub.travel_date}",
                 book.record(dates={"includes_all": [sub.travel_date]}))
    if sub.party:
        book.add(f"The reservation is for {sub.party} people", book.record(customer_count={"eq": sub.party}))
    if sub.visit_time:
        book.add(f"The reservation is for {sub.visit_time}", book.record(time={"contains": sub.visit_time}))
    book.paid()
    return book


def _shift(day: str, days: int) -> str:
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()

"""Expand a curated spec (:mod:`.spec`) into an official suite: the layout of a small, hand-written subtask.

A curated subtask names its merchants and the phrases that decide; this module lays them out so a
preference-aware agent can win and a literal one cannot:

* every candidate matches the literal request; exactly one (the target) satisfies every rubric, and it
  is never the best rated: a "popular" distractor rated 4.9 breaks the remembered preference the spec
  names (``popular_breaks``);
* every other distractor breaks one or two dimensions (one-constraint-off, as in the paper's §A.2.3);
* a merchant whose name mentions a decisive phrase (``Seafood``, ``Sichuan``) carries that phrase.

Entities, locations, environments, rubric checks and the subtask and user records are built by the same
code as generated suites (:mod:`.environment`, :mod:`.rubrics`, :mod:`.generator`); only the layout
differs, because the paper's layout needs 10-15 merchants and 40 products where a curated subtask has six.

Determinism: each subtask draws from ``random.Random("<seed>:<user id>:<n>")``.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from .catalog import KINDS
from .environment import city_centre, entity_body, environment_record, location, transport_body
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
)
from .vocab import STREETS, title_case

_DimensionSpec = PhraseDimension | MinScoreDimension | MaxPriceDimension

#: The first streets of the shared list: curated addresses draw from these.
_CURATED_STREETS = STREETS[:10]
_DEPARTURES = {"morning departure": ("08:05", "09:40"), "afternoon departure": ("13:20", "15:10"),
               "evening departure": ("18:30", "20:05"), "red-eye": ("23:50", "01:00"), "": ("10:00", "15:00")}
_SEAT_PRICE = {"first class": 1.6, "business class": 3.0, "business": 2.6}
_WEATHER = ("sunny", "cloudy", "light rain")


def expand(spec: CuratedSpec) -> list[dict[str, Any]]:
    """The suite: a list of users in the official ``tasks.json`` format."""
    return [expand_user(spec.seed, user) for user in spec.users]


def expand_user(seed: str, user: UserSpec) -> dict[str, Any]:
    """One official ``PersonalizationTask`` dict."""
    subtasks = []
    previous = user.start
    for n, sub in enumerate(user.subtasks, 1):
        subtasks.append(expand_subtask(seed, user, n, previous))
        previous = sub.day
    return user_record(user.user_id, user.profile, subtasks)


# ------------------------------------------------------------------------------------------ layout


def _phrase(dim: _DimensionSpec, value: str) -> str | None:
    """The phrase a candidate carries for a dimension value (``"good"``: the good phrase)."""
    if not isinstance(dim, PhraseDimension):
        return None
    return dim.good if value == "good" else value


class _Layout:
    """The merchants of one subtask, with the dimensions each one and each of its products breaks.

    A *variant* maps every dimension index to ``"good"`` or the bad phrase it carries instead.
    """

    def __init__(self, sub: SubtaskSpec, rng: random.Random, label: str):
        self.sub, self.rng, self.label = sub, rng, label  # label: "U100001 subtask 3", for errors
        self.merchants: list[dict[str, Any]] = []  # {"role", "breaks", "variants", "name"}

    def _variant(self, breaks: dict[int, str]) -> dict[int, str]:
        return {i: breaks.get(i, "good") for i, _ in enumerate(self.sub.dimensions)}

    def _one_off(self, level: str) -> list[dict[int, str]]:
        out = []
        for i, dim in enumerate(self.sub.dimensions):
            if dim.level != level:
                continue
            for bad in dim.bad if isinstance(dim, PhraseDimension) else ("bad",):
                out.append({i: bad})
        return out

    def build(self) -> _Layout:
        sub, rng = self.sub, self.rng
        count = len(sub.merchants)
        target_pos = rng.choice(range(3, count))
        popular_pos = rng.choice(range(0, 3))
        product_offs = self._one_off("product")
        merchant_offs = self._one_off("merchant")
        rng.shuffle(product_offs)
        rng.shuffle(merchant_offs)
        pb = sub.popular_breaks
        popular_dim = sub.dimensions[pb]
        popular_bad = popular_dim.bad[0] if isinstance(popular_dim, PhraseDimension) else "bad"
        others = 0
        for pos in range(count):
            if pos == target_pos:
                role, m_breaks = "target", {}
            elif pos == popular_pos:
                role = "popular"
                m_breaks = {pb: popular_bad} if popular_dim.level == "merchant" else {}
            else:
                role = "other"
                # With product dimensions, every other merchant is compliant (only its products are
                # off); otherwise each one breaks a merchant dimension.
                others += 1
                compliant = bool(product_offs) and others % 2 == 0
                m_breaks = {} if compliant or not merchant_offs else merchant_offs.pop(0)
                if not merchant_offs:
                    merchant_offs = self._one_off("merchant")
                    rng.shuffle(merchant_offs)
            products: list[dict[int, str]] = []
            if role == "target":
                products = [{}] + [product_offs[i % len(product_offs)] for i in range(2)] if product_offs else [{}]
            elif role == "popular":
                hero = {pb: popular_bad} if popular_dim.level == "product" else {}
                products = [hero] + [off for off in product_offs if off != hero][:2]
            else:
                if m_breaks:  # breaks a merchant dimension: may sell a product that is right in itself
                    products = [{}] + product_offs[:1]
                else:  # a compliant merchant: every product breaks a product dimension
                    products = product_offs[:2] or [{}]
                if len(product_offs) > 1:
                    both = {**product_offs[0], **product_offs[-1]}
                    if both not in products:
                        products.append(both)
            product_offs[:] = product_offs[1:] + product_offs[:1]
            rng.shuffle(products)  # the target is not always a merchant's first product
            self.merchants.append({"role": role, "breaks": m_breaks,
                                   "variants": [self._variant({**m_breaks, **p}) for p in products]})
        self._name_merchants()
        self._check_unique()
        return self

    def _carried(self, merchant: dict[str, Any]) -> set[str]:
        out = set()
        for i, dim in enumerate(self.sub.dimensions):
            if dim.level == "merchant":
                phrase = _phrase(dim, merchant["breaks"].get(i, "good"))
                if phrase:
                    out.add(phrase.lower())
        return out

    def _name_merchants(self) -> None:
        """The spec lists the popular merchant's name first, the target's second, then the others; a name
        that mentions a merchant phrase goes to a merchant that carries it."""
        phrases = {p.lower() for d in self.sub.dimensions if isinstance(d, PhraseDimension) and d.level == "merchant"
                   for p in (d.good, *d.bad) if p}

        def fits(name: str, merchant: dict[str, Any]) -> bool:
            return {p for p in phrases if p in name.lower()} <= self._carried(merchant)

        popular, target, *rest = self.sub.merchants
        for merchant in self.merchants:
            if merchant["role"] in ("popular", "target"):
                merchant["name"] = popular if merchant["role"] == "popular" else target
                if not fits(merchant["name"], merchant):
                    raise ValueError(f"{self.label}: the name {merchant['name']!r} contradicts its tags "
                                     f"{sorted(self._carried(merchant))}")
        for merchant in self.merchants:
            if merchant["role"] != "other":
                continue
            ranked = sorted(rest, key=lambda name: (not fits(name, merchant),
                                                    not any(p in name.lower() for p in self._carried(merchant))))
            merchant["name"] = ranked[0]
            rest.remove(ranked[0])
            if not fits(merchant["name"], merchant):
                raise ValueError(f"{self.label}: no merchant name fits one carrying "
                                 f"{sorted(self._carried(merchant))}")

    def _check_unique(self) -> None:
        winners = [v for m in self.merchants for v in m["variants"] if all(value == "good" for value in v.values())]
        if len(winners) != 1:
            raise ValueError(f"{self.label}: {len(winners)} candidates satisfy every rubric")


# ------------------------------------------------------------------------------------------ materialise


def expand_subtask(seed: str, user: UserSpec, n: int, previous_day: str) -> dict[str, Any]:
    """Expand the ``n``-th (1-based) subtask of a user into the official subtask dict."""
    sub = user.subtasks[n - 1]
    uid = user.user_id
    rng = random.Random(f"{seed}:{uid}:{n}")
    domain, record_type, container = KINDS[sub.kind]
    where = sub.destination or str(user.profile["city"])
    centre = city_centre(where) if sub.destination else user.home
    layout = _Layout(sub, rng, f"{uid} subtask {n}").build()

    entities: dict[str, dict[str, Any]] = {}
    satisfying: dict[int, list[str]] = {i: [] for i in range(len(sub.dimensions))}  # ids meeting each dimension
    target_entity = target_product = ""
    used_scores: set[float] = set()
    for index, merchant in enumerate(layout.merchants):
        eid = f"{'S' if domain != 'ota' else sub.kind[0].upper()}{uid[1:]}{n:02d}{index + 1:02d}"
        role, breaks, name = merchant["role"], merchant["breaks"], merchant["name"]
        score = _score(sub, role, breaks, rng, used_scores)
        tags = list(sub.merchant_tags)
        for i, dim in enumerate(sub.dimensions):
            if dim.level == "merchant":
                phrase = _phrase(dim, breaks.get(i, "good"))
                if phrase:
                    tags.append(phrase)
                if breaks.get(i, "good") == "good" and not isinstance(dim, MinScoreDimension):
                    satisfying[i].append(eid)
            if isinstance(dim, MinScoreDimension) and score >= dim.min_score:
                satisfying[i].append(eid)
        if role == "popular":
            tags.append("popular")
        products = []
        for k, variant in enumerate(merchant["variants"]):
            pid = f"P{uid[1:]}{n:02d}{index + 1:02d}{k + 1:02d}"
            product, is_target, reasons = _product(sub, variant, rng, pid, k, index)
            for i, dim in enumerate(sub.dimensions):
                if dim.level == "product" and variant[i] == "good":
                    satisfying[i].append(pid)
            if is_target and role == "target":
                target_product = pid
            product["product_type"] = "target" if (is_target and role == "target") else "distraction"
            if product["product_type"] == "distraction":
                merchant_reasons = [sub.dimensions[i].reason for i in breaks]
                product["distraction_reason"] = "; ".join(merchant_reasons + reasons) or "not the target"
            products.append(product)
        if sub.kind in TRAVEL_KINDS and role == "target":
            # A date distractor: the target offer on the wrong day.
            twin = dict(next(p for p in products if p["product_id"] == target_product))
            twin["product_id"] = twin["product_id"][:-2] + f"{len(products) + 1:02d}"
            twin["date"] = _shift(sub.travel_date or sub.day, 1)
            twin["product_type"] = "distraction"
            twin["distraction_reason"] = "the wrong date"
            products.append(twin)
        if role == "target":
            target_entity = eid
        marker = "target" if role == "target" else "distraction"
        body = _entity(sub, domain, eid, name, score, tags, products, rng, where, centre, marker,
                       str(user.profile["city"]))
        if marker == "distraction":
            body["distraction_reason"] = "; ".join(sub.dimensions[i].reason for i in breaks) or \
                "every product breaks a preference"
        entities[eid] = body
    weather = {"city": where, "category": rng.choice(_WEATHER), "datetime": sub.travel_date or sub.day,
               "temperature": [rng.randint(8, 18), rng.randint(20, 30)], "humidity": rng.randint(40, 85)}
    environment = environment_record(f"{sub.day} {sub.clock}", uid, weather, user.profile, user.home, user.work,
                                     container, entities)
    book = _rubrics(user, sub, record_type, satisfying)
    preferences = user.preferences[sub.preferences]
    memory = {"current": {k: list(v) for k, v in preferences.items()},
              "preference_tag_change_history": [change.official() for change in sub.changes]}
    return subtask_record(
        uid, n, domain=domain, task=sub.task, current_time=sub.day, start_date=previous_day,
        end_date=_shift(sub.day, -1), instruction=sub.instruction, interactions=_interactions(sub),
        environment=environment, profile=user.profile, memory=memory, rubrics=book.texts, checks=book.checks,
        target_ids=[target_product] if sub.kind != "reservation" else [target_entity],
        skills=["proactive"] if sub.intention else ["personalize"], intention=sub.intention)


def _interactions(sub: SubtaskSpec) -> list[dict[str, Any]]:
    """The spec's history days as official daily records (one record per day: its behaviour, then the chat)."""
    events: list[Event] = []
    for entry in sub.history:
        day = date.fromisoformat(entry.date)
        for behaviour in entry.behavior:
            official = behaviour.official()
            events.append(Event(day, len(events), official["behavior_type"], official["content"]))
        if entry.chat:
            turns = [{"role": "user" if i % 2 == 0 else "assistant", "content": text}
                     for i, text in enumerate(entry.chat)]
            events.append(Event(day, len(events), "dialogue", turns))
    interactions, _ = records(events, "daily", random.Random(0))  # the daily shape draws nothing
    return interactions


def _score(sub: SubtaskSpec, role: str, breaks: dict[int, str], rng: random.Random, used: set[float]) -> float:
    floor = next((d.min_score for d in sub.dimensions if isinstance(d, MinScoreDimension)), None)
    if role == "popular":
        return 4.9
    if role == "target":
        return 4.6 if floor is None or floor <= 4.6 else 4.8
    if any(isinstance(sub.dimensions[i], MinScoreDimension) for i in breaks):
        pool = [4.0, 4.1, 4.2, 4.3, 4.4]
    else:
        pool = [4.5, 4.6, 4.7, 4.8] if floor is not None else [4.2, 4.4, 4.5, 4.7, 4.8]
    free = [s for s in pool if s not in used] or pool
    score = rng.choice(free)
    used.add(score)
    return score


def _product(sub: SubtaskSpec, variant: dict[int, str], rng: random.Random, pid: str, k: int,
             index: int) -> tuple[dict[str, Any], bool, list[str]]:
    """One product (dish, voucher, room, seat) for a variant; returns it, whether it is right, and why not."""
    phrases: list[str] = []
    reasons: list[str] = []
    lo, hi = sub.price
    price = float(rng.randint(lo, hi))
    for i, dim in enumerate(sub.dimensions):
        if dim.level != "product":
            continue
        if variant[i] != "good":
            reasons.append(dim.reason)
        if isinstance(dim, MaxPriceDimension):
            cap = int(dim.max_price)
            price = float(rng.randint(lo, min(hi, cap))) if variant[i] == "good" else \
                float(rng.randint(cap + 8, cap * 2))
            continue
        phrase = _phrase(dim, variant[i])
        if phrase:
            phrases.append(phrase)
    is_target = all(value == "good" for value in variant.values())
    item = sub.items[(index + k) % len(sub.items)]
    if sub.kind == "hotel":
        room = ", ".join([item] + [title_case(p) for p in phrases])
        return {"product_id": pid, "room_type": room, "date": sub.travel_date, "price": price,
                "quantity": rng.randint(2, 6)}, is_target, reasons
    if sub.kind in ("train", "flight"):
        seat = phrases[0] if phrases else "economy"
        price = float(round(price * _SEAT_PRICE.get(seat, 1.0)))
        return {"product_id": pid, "seat_type": seat, "date": sub.travel_date, "price": price,
                "quantity": rng.randint(5, 30)}, is_target, reasons
    # Dishes, drinks, vouchers: the leading phrases fill the item template; all phrases are tags.
    lead, rest = phrases[:sub.name_dims], phrases[sub.name_dims:]
    filler = " ".join(title_case(p) for p in lead)
    name = item.format(filler) if "{}" in item else f"{filler} {item}".strip()
    if rest:
        name += f" ({', '.join(rest)})"
    product = {"product_id": pid, "name": name, "price": price, "quantity": rng.randint(20, 99),
               "tags": list(sub.product_tags) + phrases}
    if sub.kind == "delivery":
        product["attributes"] = []
    return product, is_target, reasons


def _entity(sub: SubtaskSpec, domain: str, eid: str, name: str, score: float, tags: list[str],
            products: list[dict[str, Any]], rng: random.Random, where: str, centre: tuple[float, float],
            marker: str, user_city: str) -> dict[str, Any]:
    if sub.kind == "reservation":
        for p in products:  # the menu is not what is decided in a reservation subtask
            p["product_type"] = "irrelevant"
            p.pop("distraction_reason", None)
    if sub.kind in ("train", "flight"):
        return _transport(sub, eid, name, tags, products, rng, marker, user_city)
    return entity_body(sub.kind, eid, name, score, location(rng, where, centre, _CURATED_STREETS), tags,
                       products, marker, enable_reservation=domain == "instore")


def _transport(sub: SubtaskSpec, eid: str, number: str, tags: list[str], products: list[dict[str, Any]],
               rng: random.Random, marker: str, origin: str) -> dict[str, Any]:
    """A train or a flight from the user's city to the destination, timed to match its tags."""
    when = next((t for t in tags if t in _DEPARTURES), "")
    lo, hi = _DEPARTURES[when]
    hour = int(lo[:2]) + rng.randint(0, max(0, (int(hi[:2]) - int(lo[:2])) % 24))
    dep = f"{hour % 24:02d}:{rng.choice(['05', '20', '35', '50'])}"
    arr = f"{(hour + (1 if sub.kind == 'train' else 3)) % 24:02d}:{dep[3:]}"
    dest = sub.destination or ""
    o_loc = location(rng, origin, city_centre(origin), _CURATED_STREETS)
    d_loc = location(rng, dest, city_centre(dest), _CURATED_STREETS)
    departure, arrival = sub.stations or ("", "")
    o_loc["address"], d_loc["address"] = f"{departure}, {origin}", f"{arrival}, {dest}"
    return transport_body(sub.kind, eid, number, origin, dest, o_loc, d_loc, dep, arr, tags, products, marker)


def _rubrics(user: UserSpec, sub: SubtaskSpec, record_type: str, satisfying: dict[int, list[str]]) -> RubricBook:
    book = RubricBook(record_type)
    if sub.intention:
        book.add("The agent asks the user for the missing details (how many people, or when) before deciding",
                 {"kind": "asked", "pattern": ASK_COUNT_OR_TIME})
    for i, dim in enumerate(sub.dimensions):
        if dim.level == "merchant":
            book.add(dim.rubric, book.record(entity_id={"in": sorted(satisfying[i])}))
        else:
            book.add(dim.rubric, book.record(product_ids={"subset_of": sorted(satisfying[i])}))
    if sub.address:
        address = str(user.profile["home_address" if sub.address == "home" else "work_address"])
        key = address.split(", ")[-3] if address.count(", ") >= 3 else address
        label = "home" if sub.address == "home" else "office"
        book.add(f"The order is delivered to the user's {label} address ({address})",
                 book.record(address={"contains": key}))
    if sub.quantity:
        book.add(f"The order is for {sub.quantity} in total", book.record(total_quantity={"eq": sub.quantity}))
    if sub.travel_date:
        what = "night" if sub.kind == "hotel" else "travel date"
        book.add(f"The booking is for the {what} of {sub.travel_date}",
                 book.record(dates={"includes_all": [sub.travel_date]}))
    if sub.party:
        book.add(f"The reservation is for {sub.party} people", book.record(customer_count={"eq": sub.party}))
    if sub.visit_time:
        book.add(f"The reservation is for {sub.visit_time}", book.record(time={"contains": sub.visit_time}))
    if record_type != "reservation":
        book.add("The order is paid", book.record(status={"eq": "paid"}))
    return book


def _shift(day: str, days: int) -> str:
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()

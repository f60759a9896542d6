"""Build one subtask's environment: merchants, products, one target and its distractors (paper A.2.2-A.2.3).

A subtask decides on a few *dimensions*: the user's preferences it tests (a liked value, an avoided
ingredient, a rating floor, a situational preference) and, for travel, the requested date.
Every candidate option (a product of a merchant, or a merchant for table reservations) is described by the
dimensions it breaks, and the layout follows the paper's complexity controls, as the validator's
``target`` and ``distractors`` rules state them (:mod:`.validator`).

Options only differ on the subtask's dimensions (and on names, prices and ratings), so "satisfies every
rubric" and "is the target" are the same thing by construction; the validator checks it independently.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from .catalog import AXIS, KINDS, NAME_PREFIXES, POPULAR_TAGS, Family
from .config import SynthConfig
from .plan import Pref, SubPlan, UserPlan, allowed_values
from .rng import stream
from .vocab import CITIES, STREETS, title_case

_DEPARTURES = {"morning departure": (7, 11), "afternoon departure": (12, 16), "evening departure": (18, 21)}
_AIRLINES = {"full-service airline": ("CA", "MU", "CZ"), "budget airline": ("9C", "HO", "G5")}
_SEAT_PRICE = {"first class": 1.6, "business class": 3.0, "extra legroom": 1.3, "business cabin": 2.8}
_WEATHER = ("sunny", "cloudy", "light rain", "overcast")


@dataclass
class Dim:
    """One dimension of a subtask's decision."""

    key: str
    level: str  # "product" | "merchant"
    kind: str  # value | aversion | floor | conditional | date
    good: str | None
    bad: tuple[str, ...]
    pref: Pref | None = None
    cursor: int = 0

    def next_bad(self) -> str:
        """The bad phrases in turn, so distractors cover every alternative."""
        value = self.bad[self.cursor % len(self.bad)] if self.bad else "off"
        self.cursor += 1
        return value


@dataclass
class Slot:
    """A merchant being laid out: its merchant-level breaks and its products' breaks."""

    role: str  # target | popular | off | compliant
    breaks: dict[int, str] = field(default_factory=dict)
    products: list[dict[int, str]] = field(default_factory=list)


@dataclass
class Built:
    """A subtask's environment and what the rubrics need to know about it."""

    environment: dict[str, Any]
    dims: list[Dim]
    satisfying: dict[int, list[str]]
    target_entity: str
    target_product: str | None
    record_type: str
    decision_day: str


def make_dims(plan: UserPlan, sub: SubPlan, decision_day: date) -> list[Dim]:
    """The subtask's dimensions: its preferences at the subtask's day, plus the date for travel."""
    dims = []
    family = sub.family
    for pref in sub.prefs:
        axis = AXIS[pref.axis]
        value = pref.value_at(sub.day)
        if pref.kind in ("value", "conditional"):
            allowed = allowed_values(axis, family, plan.person)
            dims.append(Dim(axis.key, axis.level, pref.kind, value, tuple(v for v in allowed if v != value), pref))
        elif pref.kind == "aversion":
            dims.append(Dim(axis.key, axis.level, "aversion", None, (value,), pref))
        elif pref.kind == "floor":
            dims.append(Dim(axis.key, axis.level, pref.kind, value, ("off",), pref))
    if family.kind in ("hotel", "train", "flight", "attraction"):
        wrong = tuple((decision_day + timedelta(days=k)).isoformat() for k in range(1, 6))
        dims.append(Dim("date", "product", "date", decision_day.isoformat(), wrong))
    return dims


def build(config: SynthConfig, plan: UserPlan, sub: SubPlan, decision_day: date) -> Built:
    """Lay out and materialise one subtask's environment."""
    rng = stream(config.seed, "env", plan.person.user_id, sub.n)
    dims = make_dims(plan, sub, decision_day)
    popular = next((i for i, d in enumerate(dims) if d.pref is not None and d.pref.pid == sub.popular), None)
    layout = _reservation_layout if sub.kind == "reservation" else _product_layout
    return _materialise(rng, plan, sub, dims, layout(config, rng, dims, popular), decision_day)


# ------------------------------------------------------------------------------------------ layout


def _product_layout(config: SynthConfig, rng: random.Random, dims: list[Dim], popular: int | None) -> list[Slot]:
    product = [i for i, d in enumerate(dims) if d.level == "product" and d.kind != "date"]
    merchant = [i for i, d in enumerate(dims) if d.level == "merchant"]
    dated = next((i for i, d in enumerate(dims) if d.kind == "date"), None)
    size = rng.randint(config.merchants_min, config.merchants_max)
    per, need = 3, config.one_off_min
    while 2 + len(merchant) * math.ceil(need / per) > size and per < need:
        per += 1
    offs_per_dim = {d: math.ceil(need / per) for d in merchant}
    size = max(size, min(config.merchants_max, 2 + sum(offs_per_dim.values())))
    cycle = _Cycle(product, dims)

    target = Slot("target", products=[{}])
    if product:
        target.products += [cycle.one_off() for _ in range(2)]
    slots = [target]
    pop = Slot("popular")
    if popular is not None and popular in merchant:
        pop.breaks = {popular: dims[popular].next_bad()}
        pop.products = [{} for _ in range(per)]
        offs_per_dim[popular] = max(0, offs_per_dim[popular] - 1)
    elif popular is not None:
        pop.products = [{popular: dims[popular].next_bad()}] + [cycle.one_off(exclude=popular) for _ in range(per - 1)]
    else:
        pop.products = [cycle.one_off() for _ in range(per)] if product else [{}]
    slots.append(pop)
    slots += [Slot("off", breaks={d: dims[d].next_bad()}, products=[{} for _ in range(per)])
              for d in merchant for _ in range(offs_per_dim[d])]
    while len(slots) < size:
        slots.append(Slot("compliant", products=[cycle.one_off() for _ in range(per)] if product else []))
    # Every product dimension gets its quota of one-off distractors.
    hosts = [s for s in slots if s.role == "compliant"] or [s for s in slots if s.role == "target"]
    k = 0
    while product and min(cycle.count[d] for d in product) < need:
        hosts[k % len(hosts)].products.append(cycle.one_off(prefer_short=True))
        k += 1
    # Distractors that break several dimensions.
    for j in range(rng.randint(config.multi_min, config.multi_max)):
        if len(product) >= 2:
            a, b = rng.sample(product, 2)
            host = rng.choice([s for s in slots if s.role == "compliant"] or [slots[0]])
            host.products.append({a: dims[a].next_bad(), b: dims[b].next_bad()})
        elif merchant and product:
            host = rng.choice([s for s in slots if s.role == "off"])
            p = product[j % len(product)]
            host.products.append({p: dims[p].next_bad()})
        elif product and dated is not None:
            p = product[0]
            target.products.append({p: dims[p].next_bad(), dated: dims[dated].next_bad()})
        elif len(merchant) >= 2:
            a, b = rng.sample(merchant, 2)
            slots.append(Slot("off", breaks={a: dims[a].next_bad(), b: dims[b].next_bad()}, products=[{}]))
    if dated is not None:
        target.products += [{dated: dims[dated].next_bad()} for _ in range(need)]
    for slot in slots:
        if not slot.products:
            slot.products = [cycle.one_off()] if product else [{}]
    # Enough products in all.
    k = 0
    fillers = [s for s in slots if s.role in ("compliant", "off")]
    while sum(len(s.products) for s in slots) < config.products_min and fillers:
        host = fillers[k % len(fillers)]
        host.products.append(cycle.one_off() if host.role == "compliant" and product else {})
        k += 1
    _trim(slots, config)
    return _order(rng, slots)


def _trim(slots: list[Slot], config: SynthConfig) -> None:
    """Drop surplus one-off products (the paper asks for at least 40, about 50 entities in all), keeping
    every dimension's quota of one-off distractors and at least two products per merchant."""
    def one_offs(d: int) -> int:
        return sum(1 for s in slots for b in s.products if len({**s.breaks, **b}) == 1 and d in {**s.breaks, **b})

    total = sum(len(s.products) for s in slots)
    for slot in [s for s in slots if s.role in ("compliant", "off")]:
        for breaks in list(reversed(slot.products)):
            if total <= config.products_min or len(slot.products) <= 2:
                break
            merged = {**slot.breaks, **breaks}
            if len(merged) != 1:
                continue
            (d,) = merged
            if one_offs(d) > config.one_off_min:
                slot.products.remove(breaks)
                total -= 1


class _Cycle:
    """Hands out one-off breaks over the product dimensions in turn and counts them."""

    def __init__(self, product: list[int], dims: list[Dim]):
        self.product, self.dims = product, dims
        self.count = {d: 0 for d in product}
        self.turn = 0

    def one_off(self, exclude: int | None = None, prefer_short: bool = False) -> dict[int, str]:
        options = [d for d in self.product if d != exclude] or self.product
        if prefer_short:
            d = min(options, key=lambda x: (self.count[x], options.index(x)))
        else:
            d = options[self.turn % len(options)]
            self.turn += 1
        self.count[d] += 1
        return {d: self.dims[d].next_bad()}


def _reservation_layout(config: SynthConfig, rng: random.Random, dims: list[Dim], popular: int | None) -> list[Slot]:
    merchant = [i for i, d in enumerate(dims) if d.level == "merchant"]
    slots = [Slot("target")]
    need = config.one_off_min
    slots += [Slot("popular" if d == popular and k == 0 else "off", breaks={d: dims[d].next_bad()})
              for d in merchant for k in range(need)]
    room = max(config.multi_min, min(config.multi_max, config.merchants_max - len(slots)))
    for _ in range(rng.randint(config.multi_min, room) if room >= config.multi_min else config.multi_min):
        if len(merchant) >= 2:
            a, b = rng.sample(merchant, 2)
            slots.append(Slot("off", breaks={a: dims[a].next_bad(), b: dims[b].next_bad()}))
    if popular is None:
        slots[1].role = "popular"
    for slot in slots:
        slot.products = [{} for _ in range(3)]
    k = 0
    while sum(len(s.products) for s in slots) < config.products_min:
        slots[1 + k % (len(slots) - 1)].products.append({})
        k += 1
    return _order(rng, slots)


def _order(rng: random.Random, slots: list[Slot]) -> list[Slot]:
    """The target after the first five merchants, the popular one among them, the rest shuffled."""
    target = next(s for s in slots if s.role == "target")
    popular = next(s for s in slots if s.role == "popular")
    rest = [s for s in slots if s is not target and s is not popular]
    rng.shuffle(rest)
    target_at, popular_at = rng.randint(5, len(slots) - 1), rng.randint(0, 4)
    others = iter(rest)
    out = [target if i == target_at else popular if i == popular_at else next(others) for i in range(len(slots))]
    for slot in out:
        rng.shuffle(slot.products)
        if slot.role == "target":  # the target first among its own (dated twins follow it)
            slot.products.sort(key=lambda b: len(b))
    return out


# ------------------------------------------------------------------------------------------ materialise


def _materialise(rng: random.Random, plan: UserPlan, sub: SubPlan, dims: list[Dim], slots: list[Slot],
                 decision_day: date) -> Built:
    family = sub.family
    person = plan.person
    digits = person.user_id[1:]
    prefix = {"hotel": "H", "train": "T", "flight": "F", "attraction": "A"}.get(family.kind, "S")
    user_floor = max((float(v.value) for p in plan.prefs if p.kind == "floor" for v in p.versions), default=0.0)
    names = _names(rng, family, len(slots))
    where = sub.dest or person.city
    centre = city_centre(where) if sub.dest else person.home
    satisfying: dict[int, list[str]] = {i: [] for i in range(len(dims))}
    entities: dict[str, dict[str, Any]] = {}
    target_entity, target_product = "", None
    day_text = decision_day.isoformat()
    dated = next((i for i, d in enumerate(dims) if d.kind == "date"), None)
    for k, slot in enumerate(slots):
        eid = f"{prefix}{digits}{sub.n:02d}{k + 1:02d}"
        score = _score(rng, slot, dims, user_floor)
        merchant_phrases = [_phrase(dims[i], slot.breaks.get(i)) for i, d in enumerate(dims) if d.level == "merchant"]
        tags = list(family.tags) + [p for p in merchant_phrases if p]
        if slot.role == "popular":
            tags += list(POPULAR_TAGS)
        for i, d in enumerate(dims):
            if d.level == "merchant" and i not in slot.breaks:
                satisfying[i].append(eid)
        products: list[dict[str, Any]] = []
        for j, breaks in enumerate(slot.products):
            pid = f"P{digits}{sub.n:02d}{k + 1:02d}{j + 1:02d}"
            if family.kind in ("train", "flight", "attraction") and dated is not None and set(breaks) == {dated}:
                # A dated twin keeps its product id (the same seat class / ticket on another day).
                pid = next(p for p in products if not p["_breaks"])["product_id"]
            product = _product(rng, family, dims, breaks, pid, j, day_text)
            product["_breaks"] = {**slot.breaks, **breaks}
            if slot.role == "target" and not product["_breaks"]:
                target_product, target_entity = product.get("product_id"), eid
            for i, d in enumerate(dims):
                if d.level == "product" and d.kind != "date" and i not in breaks and pid not in satisfying[i]:
                    satisfying[i].append(pid)
            products.append(product)
        if slot.role == "target" and sub.kind == "reservation":
            target_entity = eid
        entities[eid] = _entity(rng, family, sub, eid, names[k], score, tags, products, slot, dims, where, centre,
                                person)
    _, record_type, container = KINDS[family.kind]
    weather = {"city": where, "category": rng.choice(_WEATHER), "datetime": day_text,
               "temperature": [rng.randint(2, 18), rng.randint(19, 33)], "humidity": rng.randint(35, 90)}
    environment = environment_record(f"{sub.day.isoformat()} {sub.clock}", person.user_id, weather, person.profile,
                                     person.home, person.work, container, entities)
    return Built(environment=environment, dims=dims, satisfying={i: sorted(v) for i, v in satisfying.items()},
                 target_entity=target_entity, target_product=target_product, record_type=record_type,
                 decision_day=day_text)


def _phrase(dim: Dim, broken: str | None) -> str | None:
    """The phrase a candidate carries for a dimension (``None``: nothing to show)."""
    if dim.kind in ("floor", "date"):
        return None
    return dim.good if broken is None else broken  # good is None for an aversion: the right option lacks it


def _names(rng: random.Random, family: Family, count: int) -> list[str]:
    if family.kind == "train":
        return [f"{rng.choice('GD')}{n}" for n in rng.sample(range(100, 9900), count)]
    if family.kind == "flight":
        return [""] * count  # flight numbers come from the airline
    prefixes = rng.sample(NAME_PREFIXES, count)
    return [f"{p} {rng.choice(family.suffixes)}" for p in prefixes]


def _score(rng: random.Random, slot: Slot, dims: list[Dim], user_floor: float) -> float:
    """Ratings: the popular merchant is the best rated; the target clears every floor the user ever had."""
    floor_at = next((i for i, d in enumerate(dims) if d.kind == "floor"), None)
    floor = float(dims[floor_at].good or 0.0) if floor_at is not None else 0.0
    if slot.role == "popular":
        return 4.9
    if floor_at is not None and floor_at in slot.breaks:
        return round(rng.randint(max(36, round(floor * 10) - 6), round(floor * 10) - 1) / 10, 1)
    lowest = max(4.0, floor)
    if slot.role == "target":
        lowest = max(4.3, lowest, user_floor)
    return round(rng.randint(round(lowest * 10), 48) / 10, 1)


def _product(rng: random.Random, family: Family, dims: list[Dim], breaks: dict[int, str], pid: str, j: int,
             day_text: str) -> dict[str, Any]:
    carried = [_phrase(d, breaks.get(i)) for i, d in enumerate(dims) if d.level == "product"]
    phrases = [p for p in carried if p]
    price = float(rng.randint(*family.price))
    stock = rng.randint(20, 99)
    date_dim = next((i for i, d in enumerate(dims) if d.kind == "date"), None)
    day = breaks.get(date_dim, day_text) if date_dim is not None else day_text
    if family.kind == "hotel":
        return product_body("hotel", pid, titled("Room", phrases), price, rng.randint(2, 8), day=day)
    if family.kind in ("train", "flight"):
        seat = phrases[0] if phrases else ("second class" if family.kind == "train" else "economy")
        price = float(round(price * _SEAT_PRICE.get(seat, 1.0)))
        return product_body(family.kind, pid, ", ".join(phrases) or seat, price, stock, day=day)
    if family.kind == "attraction":
        return product_body("attraction", pid, titled("Ticket", phrases), price, stock, day=day)
    base = family.items[j % len(family.items)] if family.items else title_case(family.noun)
    name = f"{title_case(phrases[0])} {base}" if phrases else base
    if phrases[1:]:
        name += f" ({', '.join(phrases[1:])})"
    return product_body(family.kind, pid, name, price, stock, tags=list(family.tags) + phrases)


def _reason(dims: list[Dim], breaks: dict[int, str], score: float) -> str:
    parts = []
    for i, bad in sorted(breaks.items()):
        d = dims[i]
        if d.kind == "value":
            parts.append(f"{bad} instead of {d.good}, which the user prefers")
        elif d.kind == "conditional":
            cond = d.pref.cond if d.pref else ""
            parts.append(f"{bad}, but with {cond} the user wants {d.good}")
        elif d.kind == "aversion":
            parts.append(f"contains {bad}, which the user avoids")
        elif d.kind == "floor":
            parts.append(f"rated {score}, below the user's {d.good} floor")
        else:
            parts.append(f"for {bad}, not the requested {d.good}")
    return "; ".join(parts)


def _entity(rng: random.Random, family: Family, sub: SubPlan, eid: str, name: str, score: float, tags: list[str],
            products: list[dict[str, Any]], slot: Slot, dims: list[Dim], where: str, centre: tuple[float, float],
            person: Any) -> dict[str, Any]:
    marker = "target" if slot.role == "target" else "distraction"
    for product in products:
        breaks = product.pop("_breaks")
        if sub.kind == "reservation":
            product["product_type"] = "irrelevant" if slot.role == "target" else "distraction"
        else:
            product["product_type"] = "distraction" if breaks or slot.role != "target" else "target"
        if product["product_type"] == "distraction":
            product["distraction_reason"] = _reason(dims, breaks, score) or \
                _reason(dims, slot.breaks, score) or "not the target"
    # Drawn for every kind, trains and flights too (which do not use it), so the published suites stay as they are.
    place = location(rng, where, centre)
    if family.kind == "attraction":
        body: dict[str, Any] = {
            "attraction_id": eid, "attraction_name": f"{where} {name}", "location": place,
            "description": f"A {family.noun} in {where}.", "score": score, "opening_hours": "09:00-17:30",
            "ticket_price": min(p["price"] for p in products), "products": products, "attraction_type": marker}
    elif family.kind in ("train", "flight"):
        body = _transport(rng, family, eid, name, tags, products, person.city, where, marker)
    else:
        body = entity_body(family.kind, eid, name, score, place, tags, products, marker,
                           enable_reservation=family.kind == "reservation")
    if marker == "distraction":
        body["distraction_reason"] = _reason(dims, slot.breaks, score) or "none of its options fits the user"
    return body


def _transport(rng: random.Random, family: Family, eid: str, name: str, tags: list[str],
               products: list[dict[str, Any]], origin: str, dest: str, marker: str) -> dict[str, Any]:
    window = next((t for t in tags if t in _DEPARTURES), "")
    hour, dep = departure(rng, _DEPARTURES.get(window, (9, 17)))
    hours = rng.randint(1, 4) if family.kind == "train" else rng.randint(2, 3)
    place = "Railway Station" if family.kind == "train" else "International Airport"
    body = transport_body(rng, family.kind, eid, name, (origin, dest), (f"{origin} {place}", f"{dest} {place}"),
                          (dep, f"{(hour + hours) % 24:02d}:{dep[3:]}"), tags, products, marker)
    if family.kind == "flight":  # the airline's code and number are drawn after the airports
        airline = next((t for t in tags if t in _AIRLINES), "")
        code = rng.choice(_AIRLINES.get(airline, ("CA", "MU", "CZ", "HU")))
        body["flight_number"] = f"{code}{rng.randint(1000, 8999)}"
    return body


# ------------------------------------------------------------------------------------- VitaBench 2.0 shapes
# Shared with curated suites (``curated.py``): the VitaBench 2.0 entity and environment records.


def city_centre(city: str) -> tuple[float, float]:
    """A city's centre (longitude, latitude); Beijing's for a city the vocabulary does not know."""
    return next(((lon, lat) for name, _, lon, lat in CITIES if name == city), (116.4, 39.9))


def location(rng: random.Random, city: str, centre: tuple[float, float],
             streets: tuple[str, ...] = STREETS) -> dict[str, Any]:
    """A street address within about 3 km of ``centre``."""
    lon = round(centre[0] + rng.uniform(-3, 3) / 96.0, 6)
    lat = round(centre[1] + rng.uniform(-3, 3) / 111.0, 6)
    return {"address": f"No. {rng.randint(1, 699)} {rng.choice(streets)}, {city}", "longitude": lon, "latitude": lat}


def titled(head: str, phrases: list[str]) -> str:
    """A room or ticket type: ``head`` and the phrases it carries, title-cased (``Room, Quiet, High Floor``)."""
    return ", ".join([head] + [title_case(p) for p in phrases])


def product_body(kind: str, pid: str, label: str, price: float, stock: int, *, day: str | None = None,
                 tags: list[str] | None = None) -> dict[str, Any]:
    """A product record: a dated room, seat or ticket (``label`` is its type), else a named dish or voucher."""
    if kind in ("hotel", "train", "flight", "attraction"):
        label_key = {"hotel": "room_type", "attraction": "ticket_type"}.get(kind, "seat_type")
        return {"product_id": pid, label_key: label, "date": day, "price": price, "quantity": stock}
    product: dict[str, Any] = {"product_id": pid, "name": label, "price": price, "quantity": stock, "tags": tags}
    if kind == "delivery":
        product["attributes"] = []
    return product


def entity_body(kind: str, eid: str, name: str, score: float, where: dict[str, Any], tags: list[str],
                products: list[dict[str, Any]], marker: str, *, enable_reservation: bool) -> dict[str, Any]:
    """A store (delivery), shop (instore kinds) or hotel record; stamps the owner on each product."""
    if kind == "delivery":
        for p in products:
            p["store_id"], p["store_name"] = eid, name
        return {"store_id": eid, "name": name, "score": score, "location": where, "tags": tags,
                "products": products, "store_type": marker}
    if kind in ("instore_product", "reservation"):
        for p in products:
            p["shop_id"], p["shop_name"] = eid, name
        return {"shop_id": eid, "shop_name": name, "score": score, "location": where, "tags": tags,
                "enable_book": False, "book_price": 0.0, "enable_reservation": enable_reservation,
                "products": products, "shop_type": marker}
    if kind == "hotel":
        return {"hotel_id": eid, "hotel_name": name, "score": score, "star_rating": 5 if score >= 4.7 else 4,
                "location": where, "tags": tags, "products": products, "hotel_type": marker}
    raise ValueError(f"no merchant record for the subtask kind {kind!r}")


def departure(rng: random.Random, hours: tuple[int, int]) -> tuple[int, str]:
    """A departure hour drawn from ``hours`` (24 and later: the next day's) and its ``HH:MM``."""
    hour, minute = rng.randint(*hours), rng.choice((5, 20, 35, 50))
    return hour, f"{hour % 24:02d}:{minute:02d}"


def transport_body(rng: random.Random, kind: str, eid: str, number: str, cities: tuple[str, str],
                   stations: tuple[str, str], times: tuple[str, str], tags: list[str], products: list[dict[str, Any]],
                   marker: str, streets: tuple[str, ...] = STREETS) -> dict[str, Any]:
    """A train or flight record from ``cities[0]`` to ``cities[1]``, leaving and arriving at ``times``; each end
    is a point near its city's centre, addressed to its station or airport (``stations``)."""
    (origin, dest), place = cities, "station" if kind == "train" else "airport"
    o_loc, d_loc = location(rng, origin, city_centre(origin), streets), location(rng, dest, city_centre(dest), streets)
    o_loc["address"], d_loc["address"] = f"{stations[0]}, {origin}", f"{stations[1]}, {dest}"
    return {f"{kind}_id": eid, f"{kind}_number": number, "departure_city": origin, "arrival_city": dest,
            f"departure_{place}_location": o_loc, f"arrival_{place}_location": d_loc, "departure_time": times[0],
            "arrival_time": times[1], "tags": tags, "products": products, f"{kind}_type": marker}


def environment_record(time: str, user_id: str, weather: dict[str, Any], addresses: dict[str, Any],
                       home: tuple[float, float], work: tuple[float, float], container: str,
                       entities: dict[str, Any]) -> dict[str, Any]:
    """A subtask's ``environment``: time, user, weather, home and work locations, no orders, the candidates."""
    env: dict[str, Any] = {
        "time": time,
        "user_id": user_id,
        "weather": [weather],
        "location": [
            {"address": addresses["home_address"], "longitude": home[0], "latitude": home[1]},
            {"address": addresses["work_address"], "longitude": work[0], "latitude": work[1]},
        ],
        "orders": {},
        container: entities,
    }
    if container == "shops":
        env["reservations"], env["books"] = {}, {}
    return env

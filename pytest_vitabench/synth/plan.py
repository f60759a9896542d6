"""Plan each user's life in the suite: when the subtasks happen, what they ask for, and how the user's
preferences appear, change and disappear over time (paper sections A.1.2 and C.2.2).

The plan is pure data; :mod:`.history` turns it into interactions and :mod:`.environment` into the
candidate spaces. Population-wide figures (subtask counts, domain mix, proactive subtasks, preference
counts and changes, history sizes) are allocated exactly across users first, then each user is planned
from its own random stream.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import accumulate

from .catalog import AXIS, BACKGROUND, CATEGORIES, DETAILS, FAMILIES, Axis, Family
from .config import PAPER, SynthConfig
from .profiles import Person, build_people
from .rng import labelled, quota, spread, stream

DOMAINS = ("delivery", "instore", "ota")
FLOORS = (4.3, 4.4, 4.5, 4.6)
#: Families whose proactive variant asks how many / when (P1).
COUNT_FAMILIES = ("coffee", "milk_tea", "fruit_tea", "dessert", "dumplings", "massage", "cinema", "restaurant",
                  "hotel", "train", "flight", "attraction")
#: The latest day a timeline may end, and the spread of end days across users.
LAST_DAY = date(2026, 2, 27)
END_SPREAD = 150


@dataclass
class Version:
    """One value of a preference, from ``start`` on; ``explicit`` when the user said so that day."""

    start: date
    value: str
    explicit: bool = True


@dataclass
class Pref:
    """One preference of one user over time."""

    pid: str
    category: str
    kind: str  # value | aversion | floor | conditional | background
    axis: str = ""
    cond: str = ""
    detail: str = ""
    versions: list[Version] = field(default_factory=list)
    end: date | None = None
    end_explicit: bool = False
    initial: bool = False
    uses: list[int] = field(default_factory=list)

    @property
    def start(self) -> date:
        return self.versions[0].start

    def version_at(self, day: date) -> Version | None:
        if day < self.start or (self.end is not None and day >= self.end):
            return None
        return [v for v in self.versions if v.start <= day][-1]

    def value_at(self, day: date) -> str:
        version = self.version_at(day)
        assert version is not None, f"{self.pid} is not active on {day}"
        return version.value

    def active(self, day: date) -> bool:
        return self.version_at(day) is not None

    def tag(self, value: str) -> str:
        """The ground-truth tag text of this preference holding ``value``."""
        axis = AXIS.get(self.axis)
        if self.kind == "background":
            core = value
        elif self.kind == "floor":
            return f"only orders from merchants rated at least {value}"
        elif self.kind == "conditional":
            core = (axis.tag if axis else "{value} when {cond}").format(value=value, cond=self.cond)
        elif self.kind == "aversion":
            core = f"no {value} {axis.scope if axis else ''}".strip()
        else:
            core = f"{value} {axis.scope if axis else ''}".strip()
        return f"{core} ({self.detail})" if self.detail else core


@dataclass
class SubPlan:
    """One subtask before expansion."""

    n: int
    day: date
    clock: str
    family: Family
    proactive: str = ""  # "" | "count" | "conditional"
    cond: str = ""  # conditional: the hidden condition term
    prefs: list[Pref] = field(default_factory=list)
    popular: str = ""  # pid of the preference the popular distractor breaks
    misleading: list[str] = field(default_factory=list)  # pids poisoned by noise right before this subtask
    address: str = ""  # delivery: "home" | "work"
    dest: str = ""  # ota: destination city
    count: int = 1
    when_ahead: int = 0  # days from today to the visit / travel / stay
    visit_clock: str = ""  # reservation: HH:MM

    @property
    def kind(self) -> str:
        return self.family.kind

    @property
    def domain(self) -> str:
        return self.family.domain


@dataclass
class UserPlan:
    person: Person
    start: date
    subtasks: list[SubPlan]
    prefs: list[Pref]
    shape: str  # "daily" | "event"
    events: int
    orders: int
    noise_share: float = 0.2

    @property
    def end(self) -> date:
        return self.subtasks[-1].day


# ------------------------------------------------------------------------------------------ population


def plan_users(config: SynthConfig) -> list[UserPlan]:
    """Plan every user of a suite."""
    people = build_people(config.seed, config.users, config.id_prefix)
    rng = stream(config.seed, "allocation")
    n_users = config.users
    total = max(n_users * config.subtasks_min, min(n_users * config.subtasks_max,
                                                   round(n_users * config.subtasks_mean)))
    counts = spread(rng, total, n_users, config.subtasks_min, config.subtasks_max)
    total = sum(counts)
    domains = labelled(rng, quota(total, [config.delivery_share, config.instore_share, config.ota_share]),
                       list(DOMAINS))
    proactive_total = round(total * config.proactive_share)
    proactive = spread(rng, proactive_total, n_users, 1 if proactive_total >= n_users else 0,
                       max(1, min(c // 3 for c in counts)))
    prefs = _around(rng, config.preferences_per_user, n_users, 0.15)
    adds = _around(rng, config.additions_per_user, n_users, 0.15)
    dels = _around(rng, config.deletions_per_user, n_users, 0.4)
    mods = _around(rng, config.modifications_per_user, n_users, 0.4)
    events = _around(rng, config.events_per_user, n_users, 0.12)
    orders = _around(rng, config.orders_per_user, n_users, 0.12)
    days = _around(rng, config.history_days, n_users, 0.1)
    shapes = labelled(rng, quota(n_users, [1 - config.event_shape_share, config.event_shape_share]),
                      ["daily", "event"])
    starts = [0, *accumulate(counts)]  # each user's first subtask in ``domains``
    sizes = zip(proactive, prefs, adds, dels, mods, events, orders, days, shapes, strict=True)
    return [_plan_user(config, person, domains[starts[i]:starts[i + 1]], *size)
            for i, (person, size) in enumerate(zip(people, sizes, strict=True))]


def _around(rng: random.Random, mean: float, n: int, relative: float) -> list[int]:
    """``n`` integers around ``mean`` (within +-``relative``) whose total is ``round(mean * n)``."""
    low = max(0, int(mean * (1 - relative)))
    high = max(low, int(round(mean * (1 + relative))))
    return spread(rng, round(mean * n), n, low, high)


# ------------------------------------------------------------------------------------------ one user


def _plan_user(config: SynthConfig, person: Person, domains: list[str], n_proactive: int, n_prefs: int,
               n_adds: int, n_dels: int, n_mods: int, n_events: int, n_orders: int, n_days: int,
               shape: str) -> UserPlan:
    rng = stream(config.seed, "plan", person.user_id)
    end = LAST_DAY - timedelta(days=rng.randint(0, END_SPREAD))
    start = end - timedelta(days=n_days)
    days = _subtask_days(rng, start, end, len(domains))
    subtasks = [SubPlan(n=j + 1, day=day, clock="", family=_family(rng, person, domain))
                for j, (day, domain) in enumerate(zip(days, domains, strict=True))]
    _choose_proactive(rng, subtasks, n_proactive)
    prefs: list[Pref] = []
    held = _hold_axes(rng, person, subtasks, prefs)
    for sub in subtasks:
        _choose_dims(rng, sub, held, person)
    _schedule(rng, person, start, subtasks, prefs)
    _fill_background(rng, person, start, end, prefs, n_prefs)
    _modify(rng, end, subtasks, prefs, n_mods)
    _delete(rng, end, subtasks, prefs, n_dels)
    _mark_initial(prefs, start, max(1, len(prefs) - n_adds))
    for sub in subtasks:
        _request_details(rng, person, sub)
        sub.misleading = [p.pid for p in sub.prefs if p.kind in ("value", "aversion", "conditional")
                          and p.axis != "allergen" and rng.random() < config.misleading_rate]
    if person.moved_from:
        person.moved_year = (start + timedelta(days=rng.randint(30, max(31, (days[0] - start).days - 30)))).year
        person.profile["moved_from"] = f"{person.moved_from} (moved in {person.moved_year})"
    return UserPlan(person=person, start=start, subtasks=subtasks, prefs=prefs, shape=shape, events=n_events,
                    orders=n_orders, noise_share=config.noise_share)


def _subtask_days(rng: random.Random, start: date, end: date, n: int) -> list[date]:
    """The first subtask after about a sixth of the history, the rest spread to ``end`` with jitter."""
    span = (end - start).days
    first = start + timedelta(days=max(20, int(span * rng.uniform(0.13, 0.19))))
    if n == 1:
        return [end]
    step = (end - first).days / (n - 1)
    out = [first]
    for j in range(1, n - 1):
        jitter = int(step * rng.uniform(-0.3, 0.3))
        out.append(max(out[-1] + timedelta(days=8), first + timedelta(days=int(step * j) + jitter)))
    out.append(max(end, out[-1] + timedelta(days=8)))
    return out


def _family(rng: random.Random, person: Person, domain: str) -> Family:
    options = [f for f in FAMILIES if f.domain == domain and (f.needs != "pet" or person.pet)
               and (f.needs != "car" or person.car)]
    return rng.choices(options, weights=[f.share for f in options])[0]


def _choose_proactive(rng: random.Random, subtasks: list[SubPlan], wanted: int) -> None:
    """Proactive subtasks, interleaved (never the first), about 40% conditional where the family allows."""
    eligible = [s for s in subtasks[1:] if s.family.key in COUNT_FAMILIES or _conditional_axis(s.family)]
    rng.shuffle(eligible)
    for sub in sorted(eligible[:wanted], key=lambda s: s.n):
        axis = _conditional_axis(sub.family)
        if axis is not None and (sub.family.key not in COUNT_FAMILIES or rng.random() < 0.55):
            sub.proactive = "conditional"
            sub.cond = rng.choice(axis.conditions)
        elif sub.family.key in COUNT_FAMILIES:
            sub.proactive = "count"


def distinct_families(subtasks: list[SubPlan]) -> list[Family]:
    """The families of ``subtasks`` in order of first appearance."""
    return list({sub.family.key: sub.family for sub in subtasks}.values())


def _conditional_axis(family: Family) -> Axis | None:
    return next((AXIS[a] for a in family.axes if AXIS[a].kind == "conditional"), None)


def allowed_values(axis: Axis, family: Family, person: Person) -> tuple[str, ...]:
    """The values of an axis a family's candidates can carry for this person."""
    values = family.values.get(axis.key, axis.values)
    if axis.key == "extra" and person.gender == "female":
        values = tuple(v for v in values if v != "beard trim")
    return values


def _new_pref(prefs: list[Pref], category: str, kind: str, axis: str = "", value: str = "", cond: str = "") -> Pref:
    """The user's next preference, holding ``value`` (when given) from a start :func:`_schedule` sets."""
    pref = Pref(pid=f"P{len(prefs) + 1:02d}", category=category, kind=kind, axis=axis, cond=cond,
                versions=[Version(date.min, value)] if value else [])
    prefs.append(pref)
    return pref


def _hold_axes(rng: random.Random, person: Person, subtasks: list[SubPlan], prefs: list[Pref]) -> dict[str, list[Pref]]:
    """Decide which axes the user holds a preference on and its first value; returns axis -> prefs."""
    held: dict[str, list[Pref]] = {}
    conditional = sorted({AXIS[a].key for s in subtasks if s.proactive == "conditional" for a in s.family.axes
                          if AXIS[a].kind == "conditional"})
    blocked = {AXIS[a].alternative_of for a in conditional}
    for axis_key in conditional:
        axis = AXIS[axis_key]
        held[axis_key] = [_new_pref(prefs, axis.category, "conditional", axis_key, value, cond)
                          for value, cond in zip(axis.values, axis.conditions, strict=True)]
    if person.allergy:
        held["allergen"] = [_new_pref(prefs, "Special", "aversion", "allergen", person.allergy)]
    if rng.random() < 0.75:
        held["floor"] = [_new_pref(prefs, AXIS["floor"].category, "floor", "floor", f"{rng.choice(FLOORS):.1f}")]
    for family in distinct_families(subtasks):
        _hold_for_family(rng, person, family, held, prefs, blocked)
    return held


def _usable(family: Family, held: dict[str, list[Pref]], person: Person) -> list[Pref]:
    """Held, non-conditional preferences this family's candidates can differ on."""
    prefs = [held[key][0] for key in family.axes if key in held and AXIS[key].kind != "conditional"]
    return [pref for pref in prefs
            if pref.kind != "value" or pref.versions[0].value in allowed_values(AXIS[pref.axis], family, person)]


def _hold_for_family(rng: random.Random, person: Person, family: Family, held: dict[str, list[Pref]],
                     prefs: list[Pref], blocked: set[str]) -> None:
    """Hold enough axes for this family: two that are not thresholds, one on products unless a table."""
    axes = [AXIS[a] for a in family.axes if AXIS[a].kind in ("value", "aversion", "cap") and a not in blocked]
    rng.shuffle(axes)  # with the cap axes, which have no values to hold: the published suites keep their draws
    reservation = family.kind == "reservation"
    for axis in axes:
        if axis.key in held or (reservation and axis.level != "merchant"):
            continue
        values = allowed_values(axis, family, person)
        if not values:
            continue
        usable = [p for p in _usable(family, held, person) if p.kind != "floor"]
        short = len(usable) < 2 or (not reservation and not any(AXIS[p.axis].level == "product" for p in usable))
        if not short and rng.random() >= 0.55:
            continue
        value = rng.choice(values)
        held[axis.key] = [_new_pref(prefs, axis.category, axis.kind, axis.key, value)]


def _choose_dims(rng: random.Random, sub: SubPlan, held: dict[str, list[Pref]], person: Person) -> None:
    """The preferences this subtask decides on."""
    family = sub.family
    chosen: list[Pref] = []
    if sub.proactive == "conditional":
        axis = _conditional_axis(family)
        assert axis is not None
        chosen = [p for p in held[axis.key] if p.cond == sub.cond]
    usable = _usable(family, held, person)
    reservation = family.kind == "reservation"
    if reservation:
        usable = [p for p in usable if AXIS[p.axis].level == "merchant"]
        size = 2
    else:
        size = rng.choices((2, 3, 4), weights=(0.3, 0.5, 0.2))[0]
        if family.kind in ("train", "flight"):
            size = 2
    main = [p for p in usable if p.kind != "floor"]
    rng.shuffle(main)
    if not reservation and not any(AXIS[p.axis].level == "product" for p in chosen):
        main.sort(key=lambda p: AXIS[p.axis].level != "product")
    pool = main + [p for p in usable if p.kind == "floor" and rng.random() < 0.4]
    sub.prefs = chosen + pool[:max(0, size - len(chosen))]
    breakable = [p for p in sub.prefs if p.kind in ("value", "aversion", "conditional") and p.axis != "allergen"]
    sub.popular = rng.choice(breakable).pid if breakable else ""
    for pref in sub.prefs:
        pref.uses.append(sub.n)


def _schedule(rng: random.Random, person: Person, start: date, subtasks: list[SubPlan], prefs: list[Pref]) -> None:
    """Start dates (additions) and personal details of every planned preference."""
    by_n = {s.n: s for s in subtasks}
    for pref in prefs:
        if pref.uses:
            first = by_n[pref.uses[0]].day
            latest = max(start + timedelta(days=1), first - timedelta(days=12))
            day = start + timedelta(days=rng.randint(1, max(1, (latest - start).days)))
        else:
            day = start + timedelta(days=rng.randint(1, max(1, (subtasks[-1].day - start).days - 30)))
        pref.versions[0] = Version(day, pref.versions[0].value, rng.random() < 0.75)
        pref.detail = _detail(rng, person, pref, day)


def _detail(rng: random.Random, person: Person, pref: Pref, day: date) -> str:
    if pref.kind == "floor" or pref.axis == "allergen" or rng.random() < 0.1:
        return ""
    relative = rng.choice(("her mother", "his father", "an aunt", "a grandparent", "a cousin", "a former roommate"))
    occupation = person.profile["occupation"]
    article = "an" if occupation[:1].lower() in "aeiou" else "a"
    return rng.choice(DETAILS).format(year=rng.randint(day.year - 6, day.year), hometown=person.hometown,
                                      city=person.city, occupation_a=f"{article} {occupation}",
                                      relative=relative, place=rng.choice(_TRIP_PLACES))


_TRIP_PLACES = ("Dali", "Xiamen", "Guilin", "Qingdao", "Kunming", "Suzhou", "Japan", "Thailand", "Hong Kong")


def _fill_background(rng: random.Random, person: Person, start: date, end: date, prefs: list[Pref],
                     wanted: int) -> None:
    """Preferences no subtask decides on, so categories approach the paper's shares."""
    shares = PAPER["category_share"]
    used: set[str] = set()
    while len(prefs) < wanted:
        have = {c: sum(1 for p in prefs if p.category == c) for c in CATEGORIES}
        total = len(prefs) + 1
        category = max(CATEGORIES, key=lambda c: (shares[c] * total - have[c], -CATEGORIES.index(c)))
        pool = [b for b in BACKGROUND[category] if b not in used] or list(BACKGROUND[category])
        phrase = rng.choice(pool)
        used.add(phrase)
        pref = _new_pref(prefs, category, "background")
        day = start + timedelta(days=rng.randint(1, max(1, (end - start).days - 40)))
        pref.versions = [Version(day, phrase, rng.random() < 0.75)]
        pref.detail = _detail(rng, person, pref, day)


def _modify(rng: random.Random, end: date, subtasks: list[SubPlan], prefs: list[Pref], wanted: int) -> None:
    """Value changes (drift): used preferences change between two uses, so later subtasks test the update."""
    by_n = {s.n: s for s in subtasks}
    done = 0
    candidates = [p for p in prefs if p.kind == "value" and len(p.uses) >= 2]
    rng.shuffle(candidates)
    for pref in candidates:
        if done >= wanted:
            break
        axis = AXIS[pref.axis]
        later = [by_n[n] for n in pref.uses[1:]]
        options = [v for v in axis.values if v != pref.versions[0].value
                   and all(v in s.family.values.get(axis.key, axis.values) for s in later)]
        if pref.axis == "extra":
            options = [v for v in options if v != "beard trim"]
        if not options:
            continue
        first, second = by_n[pref.uses[0]].day, by_n[pref.uses[1]].day
        if (second - first).days < 24:
            continue
        day = first + timedelta(days=rng.randint(4, (second - first).days - 14))
        pref.versions.append(Version(day, rng.choice(options), rng.random() < 0.7))
        done += 1
    # Not enough drifting decisions: background tastes drift too.
    backgrounds = [p for p in prefs if p.kind == "background" and len(p.versions) == 1]
    rng.shuffle(backgrounds)
    for pref in backgrounds:
        if done >= wanted:
            break
        pool = [b for b in BACKGROUND[pref.category] if b != pref.versions[0].value]
        day = pref.start + timedelta(days=rng.randint(20, max(21, (end - pref.start).days - 10)))
        if day >= end:
            continue
        pref.versions.append(Version(day, rng.choice(pool), rng.random() < 0.7))
        done += 1


def _delete(rng: random.Random, end: date, subtasks: list[SubPlan], prefs: list[Pref], wanted: int) -> None:
    """Preferences the user drops: never one a later subtask needs, never a profile allergy."""
    by_n = {s.n: s for s in subtasks}
    candidates = [p for p in prefs if p.axis != "allergen"]
    rng.shuffle(candidates)
    candidates.sort(key=lambda p: 0 if p.kind == "background" else 1)
    done = 0
    for pref in candidates:
        if done >= wanted:
            break
        after = pref.versions[-1].start + timedelta(days=15)
        if pref.uses:
            after = max(after, by_n[pref.uses[-1]].day + timedelta(days=5))
        if (end - after).days < 10:
            continue
        pref.end = after + timedelta(days=rng.randint(0, (end - after).days - 5))
        pref.end_explicit = rng.random() < 0.6
        done += 1


def _mark_initial(prefs: list[Pref], start: date, count: int) -> None:
    """The preferences held from the start of the history (no addition recorded for them)."""
    order = sorted(prefs, key=lambda p: (p.axis != "allergen", p.start, p.pid))
    for pref in order[:count]:
        pref.initial = True
        pref.versions[0] = Version(start, pref.versions[0].value, False)


def _request_details(rng: random.Random, person: Person, sub: SubPlan) -> None:
    """Clock, address, destination, counts and dates a request needs."""
    family = sub.family
    lo, hi = family.clock
    hour = rng.randint(lo, hi)
    if sub.proactive == "conditional" and family.key == "coffee":
        hour = 7 if sub.cond == "morning" else rng.randint(9, 11)
    sub.clock = f"{hour:02d}:{rng.choice((0, 10, 20, 30, 40, 50)):02d}:00"
    if family.kind == "delivery":
        office = family.key in ("coffee", "milk_tea", "fruit_tea", "salad", "rice_bowl")
        sub.address = "work" if (office and rng.random() < 0.8 and person.age < 60) else "home"
        if sub.proactive == "count":
            sub.count = rng.randint(3, 8)
    elif family.kind == "instore_product":
        sub.count = rng.randint(2, 4) if sub.proactive == "count" else 1
    elif family.kind == "reservation":
        sub.count = rng.randint(3, 10) if sub.proactive else rng.randint(2, 8)
        sub.when_ahead = rng.randint(1, 6)
        sub.visit_clock = rng.choice(("18:00", "18:30", "19:00", "19:30", "12:00"))
    else:
        sub.dest = rng.choice([c for c in _OTA_CITIES if c != person.city])
        sub.when_ahead = rng.randint(1, 6)
        sub.count = rng.randint(2, 4) if sub.proactive == "count" and family.kind != "hotel" else 1


_OTA_CITIES = ("Beijing", "Shanghai", "Guangzhou", "Shenzhen", "Chengdu", "Hangzhou", "Chongqing", "Wuhan",
               "Xiamen", "Suzhou", "Nanjing", "Changsha", "Qingdao", "Kunming", "Dali", "Guilin")

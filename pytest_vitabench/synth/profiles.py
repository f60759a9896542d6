"""User profiles with the population structure of paper section C.2.1.

Shares are allocated exactly (:func:`.rng.quota`) and then shuffled, so the paper's 56 users match its
shares; smaller populations get the nearest integer shares. Ages are taken on :data:`REFERENCE_DAY`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from . import vocab
from .rng import labelled, quota, stream

REFERENCE_DAY = date(2025, 12, 31)

#: Age bands (paper: 62.5% aged 20-29, 26.8% aged 30-39, 87.5% born after 1990, 71.4% Gen Z (born 1995 or
#: later in the Chinese usage), mean age about 31): (weight, ages to draw from).
AGE_BANDS: tuple[tuple[int, tuple[int, ...]], ...] = (
    (35, tuple(range(20, 30))),
    (5, (30,)),
    (9, (31, 32, 33, 34, 35)),
    (1, (37,)),
    (6, (52, 58, 63, 68, 74, 80)),
)


@dataclass
class Person:
    """A user and the traits the generator reasons with (the profile dict is what agents see)."""

    user_id: str
    gender: str
    age: int
    city: str
    home: tuple[float, float]
    work: tuple[float, float]
    hometown: str
    moved_from: str
    moved_year: int
    partner: str
    children: tuple[str, ...]
    pet: str
    car: bool
    allergy: str
    profile: dict[str, Any] = field(default_factory=dict)

    @property
    def relations(self) -> tuple[str, ...]:
        """People the user orders for (the proxies of the noisy history)."""
        out = list(vocab.RELATIONS_ANY)
        if self.partner:
            out.append(self.partner)
        out += [child.split()[0] for child in self.children]
        if self.age < 50:
            out += list(vocab.RELATIONS_ELDER)
        return tuple(out)


def build_people(seed: int, users: int, id_prefix: str = "U") -> list[Person]:
    """The population of a suite."""
    rng = stream(seed, "population")
    genders = labelled(rng, quota(users, [0.625, 0.375]), ["female", "male"])
    ages = [rng.choice(ages) for ages in labelled(rng, quota(users, [w for w, _ in AGE_BANDS]),
                                                  [a for _, a in AGE_BANDS])]
    tiers = labelled(rng, quota(users, [0.286, 0.50, 0.214]), list(vocab.TIERS))
    collars = labelled(rng, quota(users, [0.607, 0.161, 0.232]), list(vocab.COLLARS))
    moved = labelled(rng, quota(users, [0.59, 0.41]), [True, False])
    consumption = labelled(rng, quota(users, [0.196, 0.625, 0.179]), ["high", "medium", "low"])
    pets = labelled(rng, quota(users, [0.3, 0.7]), [True, False])
    cars = labelled(rng, quota(users, [0.4, 0.6]), [True, False])
    allergies = labelled(rng, quota(users, [0.25, 0.75]), [True, False])
    traits = zip(genders, ages, tiers, collars, moved, consumption, pets, cars, allergies, strict=True)
    return [_person(stream(seed, "person", i), f"{id_prefix}{seed % 100:02d}{i + 1:04d}", *person)
            for i, person in enumerate(traits)]


def _person(rng: random.Random, user_id: str, gender: str, age: int, tier: str, collar: str,
            moved: bool, consumption: str, pet: bool, car: bool, allergic: bool) -> Person:
    cities = [c for c in vocab.CITIES if c[1] == tier]
    city, _, lon, lat = rng.choice(cities)
    others = [c[0] for c in vocab.CITIES if c[0] != city]
    hometown = rng.choice(others) if rng.random() < 0.6 else city
    moved_from = rng.choice([c for c in others if c != hometown] or others) if moved else ""
    occupation = rng.choice(vocab.OCCUPATIONS[collar])
    if age >= 60:
        occupation = rng.choice(vocab.RETIRED)
    family, partner, children = _family(rng, gender, age)
    given = vocab.FEMALE_NAMES if gender == "female" else vocab.MALE_NAMES
    name = f"{rng.choice(vocab.FAMILY_NAMES)} {rng.choice(given)}"
    home, work = _near(rng, (lon, lat), 6.0), _near(rng, (lon, lat), 8.0)
    home_address = (f"Room {rng.randint(2, 28)}{rng.randint(1, 9):02d}, Building {rng.randint(1, 20)}, "
                    f"{rng.choice(vocab.NAME_PARTS)} {rng.choice(vocab.ESTATES)}, {rng.randint(1, 999)} "
                    f"{rng.choice(vocab.STREETS)}, {rng.choice(vocab.DISTRICTS)} District, {city}")
    work_street = rng.choice(vocab.STREETS)
    work_address = (f"Floor {rng.randint(2, 30)}, {rng.choice(vocab.NAME_PARTS)} {rng.choice(vocab.OFFICES)}, "
                    f"{rng.randint(1, 999)} {work_street}, {rng.choice(vocab.DISTRICTS)} District, {city}")
    birth = date(REFERENCE_DAY.year - age, rng.randint(1, 12), rng.randint(1, 28))
    person = Person(
        user_id=user_id, gender=gender, age=age, city=city, home=home, work=work, hometown=hometown,
        moved_from=moved_from, moved_year=0, partner=partner, children=children,
        pet=rng.choice(vocab.PETS) if pet else "", car=car, allergy=rng.choice(vocab.ALLERGIES) if allergic else "",
    )
    profile: dict[str, Any] = {
        "user_id": user_id, "name": name, "gender": gender, "birth_date": birth.isoformat(),
        "occupation": occupation, "occupation_type": collar, "education": _education(rng, collar),
        "city": city, "city_tier": tier, "home_address": home_address, "work_address": work_address,
        "hometown": hometown,
    }
    if moved_from:
        profile["moved_from"] = moved_from
    profile["family"] = [family] + ([f"partner: {partner}"] if partner else []) + list(children)
    if person.pet:
        profile["pets"] = person.pet
    # VitaBench 2.0's loader takes profile values as strings, lists or objects only (a bool fails validation).
    profile["owns_car"] = "yes" if car else "no"
    profile["allergies"] = person.allergy or "none"
    profile["consumption_level"] = consumption
    person.profile = profile
    return person


def _family(rng: random.Random, gender: str, age: int) -> tuple[str, str, tuple[str, ...]]:
    partner = "husband" if gender == "female" else "wife"
    weights = ((0.7, 0.2, 0.08, 0.02) if age < 27 else (0.25, 0.3, 0.33, 0.12) if age < 40 else
               (0.1, 0.35, 0.35, 0.2))
    family = rng.choices(vocab.FAMILIES, weights=weights)[0]
    if family == "single":
        return "single", "", ()
    if family == "couple":
        return "couple", partner, ()
    kid_age = max(1, min(30, age - rng.randint(24, 34)))
    first = f"{rng.choice(vocab.RELATIONS_PARENT)} aged {kid_age}"
    if family == "single-child family":
        return family, partner, (first,)
    second = f"{rng.choice(vocab.RELATIONS_PARENT)} aged {max(1, kid_age - rng.randint(2, 6))}"
    return family, partner, (first, second)


def _education(rng: random.Random, collar: str) -> str:
    if collar == "white-collar":
        return rng.choice(vocab.EDUCATION[2:])
    if collar == "gray-collar":
        return rng.choice(vocab.EDUCATION[:3])
    return rng.choice(vocab.EDUCATION[:2])


def _near(rng: random.Random, point: tuple[float, float], km: float) -> tuple[float, float]:
    return round(point[0] + rng.uniform(-km, km) / 96.0, 6), round(point[1] + rng.uniform(-km, km) / 111.0, 6)

"""Build ``suites/demo/tasks.json``: a small, English, official-format VitaBench 2.0 suite.

Four users x five subtasks over the delivery, instore and ota domains. Each subtask is written as a
short spec (request, preference dimensions, merchant names, history) and expanded by :func:`build_subtask`
into the official shapes of REFERENCE.md §1: an environment with one target among look-alike distractors,
the user's history as daily records (with noise and preference drift), the ground-truth preference tags,
atomic English rubrics and a machine check for every rubric (``rubric_checks``, see ``suite/checks.py``).

Design rules the specs follow (so a preference-aware agent can win and a literal one cannot):

* every candidate matches the literal request; exactly one (the target) satisfies every rubric, and it
  is never the best rated: a "popular" distractor rated 4.9 breaks one remembered preference;
* every other distractor breaks one or two dimensions (one-constraint-off, as in the paper's §A.2.3);
* the words that decide (``oat milk``, ``quiet``, ``non-smoking``) appear literally in the entity tags
  or room/seat types, in the ground-truth tags and in the history, where aversions use plain negation
  ("no cilantro", "I can't stand ...");
* about one record in five is noise: orders for someone else, exploratory browsing, impulsive buys.

Determinism: ids, coordinates, prices and ratings come from ``random.Random`` seeded with a fixed string
per subtask, so two builds are byte-identical. Run ``python -m pytest_vitabench.synth.demo`` to rewrite
the committed file.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

SEED = "vitabench-demo-v1"
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "suites" / "demo" / "tasks.json"

#: The subtask kinds: which records the target is booked as, and which domain serves it.
KINDS = {
    "delivery": ("delivery", "delivery"),
    "instore_product": ("instore", "instore"),
    "reservation": ("instore", "reservation"),
    "hotel": ("ota", "hotel"),
    "train": ("ota", "train"),
    "flight": ("ota", "flight"),
}

#: A question about the missing fact of a proactive subtask matches this (the ``asked`` check).
ASK_COUNT_OR_TIME = r"how many|people|guests|party|travell?ers|cups|portions|when|what time|which (day|date)|date"


# ------------------------------------------------------------------------------------------ spec types


@dataclass(frozen=True)
class Dim:
    """One preference dimension of the decision.

    Attributes:
        level: ``merchant`` (store/shop/hotel/train/flight tags) or ``product`` (product tags, room or
            seat type).
        good: The phrase the target carries; ``None`` when the target simply lacks every bad phrase.
        bad: The phrases distractors carry instead.
        rubric: The atomic English rubric.
        reason: Why a distractor that breaks it is wrong (``distraction_reason``).
    """

    level: str
    good: str | None
    bad: tuple[str, ...]
    rubric: str
    reason: str


@dataclass(frozen=True)
class MinScore:
    """A rating floor on the merchant (a remembered threshold)."""

    threshold: float
    rubric: str
    reason: str
    level: str = "merchant"


@dataclass(frozen=True)
class MaxPrice:
    """A price cap on the product (a remembered threshold)."""

    cap: float
    rubric: str
    reason: str
    level: str = "product"


@dataclass(frozen=True)
class Sub:
    """One subtask, before expansion."""

    kind: str
    day: str  # current_time, YYYY-MM-DD
    clock: str  # time of day of the environment, HH:MM:SS
    instruction: str
    merchants: tuple[str, ...]
    items: tuple[str, ...]
    dims: tuple[Dim | MinScore | MaxPrice, ...]
    popular_breaks: int  # index into dims of the preference the 4.9-rated distractor breaks
    history: tuple[dict[str, Any], ...]
    preferences: dict[str, list[str]]  # ground truth "current" as of this subtask
    changes: tuple[dict[str, str], ...] = ()
    price: tuple[int, int] = (20, 40)
    merchant_tags: tuple[str, ...] = ()
    product_tags: tuple[str, ...] = ()
    address: str | None = None  # "home" / "work": a delivery address rubric
    quantity: int | None = None  # a quantity rubric (explicit or proactive)
    travel_date: str | None = None  # ota: the night / travel day the booking must be for
    visit_time: str | None = None  # reservation: "YYYY-MM-DD HH:MM"
    party: int | None = None  # reservation: customer_count
    destination: str | None = None  # ota: the destination city
    intention: str = ""  # proactive: the fact only the user knows
    task_label: str = ""
    name_dims: int = 1  # how many product phrases go into a product's name (the rest in brackets)


@dataclass(frozen=True)
class User:
    profile: dict[str, Any]
    home: tuple[float, float]
    work: tuple[float, float]
    start: str
    subtasks: tuple[Sub, ...] = field(default_factory=tuple)


# ------------------------------------------------------------------------------------------ history helpers


def rec(day: str, *behavior: dict[str, Any], chat: tuple[str, ...] = ()) -> dict[str, Any]:
    """A daily record (interaction shape A); ``chat`` alternates user / assistant, user first."""
    dialogue = [{"role": "user" if i % 2 == 0 else "assistant", "content": text} for i, text in enumerate(chat)]
    return {"date": day, "behavior": list(behavior), "dialogue": dialogue}


def order(scenario: str, merchant: str, *items: tuple[str, float, int], tags: tuple[str, ...] = (),
          note: str = "") -> dict[str, Any]:
    content: dict[str, Any] = {"scenario": scenario, "merchant_name": merchant, "tags": list(tags),
                               "items": [{"product_name": n, "price": p, "quantity": q} for n, p, q in items]}
    if note:
        content["note"] = note
    return {"behavior_type": "order", "content": content}


def review(rating: int, text: str) -> dict[str, Any]:
    return {"behavior_type": "review", "content": {"rating": rating, "text": text}}


def search(keyword: str) -> dict[str, Any]:
    return {"behavior_type": "search", "content": {"keyword": keyword}}


def browse(topic: str) -> dict[str, Any]:
    return {"behavior_type": "browse", "content": {"topic": topic}}


# ------------------------------------------------------------------------------------------ the users

_U1_PREFS_BEFORE = {
    "Food & drink": ["whole milk in coffee", "less sugar in drinks and desserts", "no cilantro",
                     "only orders from merchants rated at least 4.5"],
    "Leisure": ["foot massage", "quiet places", "no hot stone massage"],
    "Travel": ["quiet hotels", "high floor rooms", "non-smoking rooms"],
    "Dining": ["Cantonese cuisine", "quiet restaurants for family dinners"],
}
_U1_PREFS_AFTER = {**_U1_PREFS_BEFORE, "Food & drink": [
    "oat milk in coffee", "no whole milk anymore (lactose intolerant)", "less sugar in drinks and desserts",
    "no cilantro", "only orders from merchants rated at least 4.5"]}

U1 = User(
    profile={
        "user_id": "U100001", "name": "Lin Mei", "occupation": "UX designer", "gender": "female",
        "birth_date": "1994-03-12", "city": "Shanghai",
        "home_address": "Room 1702, Building 3, Jing'an Garden, 88 Changde Road, Jing'an District, Shanghai",
        "work_address": "Floor 12, Xuhui Tech Plaza, 200 Caobao Road, Xuhui District, Shanghai",
        "family": ["married", "no children", "parents live nearby"], "hometown": "Suzhou, Jiangsu",
        "education": "Master's degree", "allergies": "peanut allergy",
    },
    home=(121.4452, 31.2312), work=(121.4243, 31.1702), start="2025-01-06",
    subtasks=(
        Sub(
            kind="delivery", day="2025-03-10", clock="08:40:00", task_label="delivery - morning coffee",
            instruction="Order me a coffee to my office for this morning.",
            merchants=("Starlight Coffee Roasters", "Brew Lab", "Bean There Cafe", "Corner Grind",
                       "Morning Ritual Coffee", "Daily Cup Express"),
            items=("{} Latte", "{} Flat White", "{} Cappuccino"), product_tags=("coffee",), merchant_tags=("coffee",),
            dims=(
                Dim("product", "whole milk", ("skim milk", "soy milk"), "The coffee is made with whole milk",
                    "not made with whole milk, the milk the user takes in coffee"),
                Dim("product", "less sugar", ("full sugar",), "The coffee is made with less sugar",
                    "full sugar; the user takes less sugar"),
                MinScore(4.5, "The coffee shop is rated at least 4.5", "rated below the user's 4.5 floor"),
            ),
            popular_breaks=0, price=(22, 38), address="work",
            history=(
                rec("2025-01-08", order("delivery", "Brew Lab", ("Whole Milk Latte", 28, 1),
                                        tags=("coffee", "whole milk", "less sugar")),
                    chat=("A latte with whole milk please, less sugar.", "Done, a whole milk latte with less sugar "
                          "from Brew Lab is on its way.")),
                rec("2025-01-15", review(5, "Creamy whole milk flat white with less sugar, exactly how I like it.")),
                rec("2025-01-22", order("delivery", "Daily Cup Express", ("Caramel Macchiato", 32, 1),
                                        tags=("coffee", "full sugar"), note="for my colleague Xiao Zhou"),
                    chat=("Get a full sugar caramel macchiato for my colleague Xiao Zhou, she has a sweet tooth.",
                          "Ordered for Xiao Zhou.")),
                rec("2025-02-03", browse("coffee shops near Caobao Road"),
                    chat=("Only pick shops rated 4.5 or above, the cheap ones keep getting my order wrong.",
                          "Noted, I will stick to shops rated at least 4.5.")),
                rec("2025-02-14", order("delivery", "Sweet Harbour Desserts", ("Mango Sago", 26, 2),
                                        tags=("dessert", "less sugar"))),
                rec("2025-02-20", order("delivery", "Lanzhou Noodle House", ("Beef Noodle Soup", 30, 1),
                                        tags=("noodles",)),
                    chat=("No cilantro in the noodles please, I really can't stand cilantro.",
                          "Sure, I asked the shop to leave out the cilantro.")),
                rec("2025-03-01", search("bubble tea"), search("skim milk latte calories")),
            ),
            preferences=_U1_PREFS_BEFORE,
        ),
        Sub(
            kind="instore_product", day="2025-04-05", clock="10:00:00", task_label="instore - massage voucher",
            instruction="I'd like a massage this afternoon. Please buy me a voucher somewhere good.",
            merchants=("Imperial Spa Palace", "Zen Garden Massage", "Lotus Wellness", "Serenity Foot Spa",
                       "Harmony Touch", "Blue Wave Spa"),
            items=("{} Voucher",), product_tags=("massage",), merchant_tags=("massage",),
            dims=(
                Dim("product", "foot massage", ("full body massage", "hot stone massage"),
                    "The voucher is for a foot massage", "not a foot massage, the kind the user prefers"),
                Dim("merchant", "quiet", ("live music", "lively"), "The massage shop is quiet",
                    "a noisy venue; the user likes quiet places"),
                MinScore(4.5, "The massage shop is rated at least 4.5", "rated below the user's 4.5 floor"),
            ),
            popular_breaks=1, price=(98, 198),
            history=(
                rec("2025-03-12", order("instore", "Serenity Foot Spa", ("60-min Foot Massage Voucher", 128, 1),
                                        tags=("massage", "foot massage", "quiet")),
                    chat=("Find me a quiet place for a foot massage after work.",
                          "Serenity Foot Spa is quiet and well rated; I bought a 60-minute voucher.")),
                rec("2025-03-16", review(2, "Tried a hot stone massage, far too hot, never again. No hot stone "
                                            "massage for me.")),
                rec("2025-03-20", search("spa with live music"), browse("rooftop bars in Jing'an")),
                rec("2025-03-28", order("delivery", "Brew Lab", ("Whole Milk Latte", 28, 1),
                                        tags=("coffee", "whole milk", "less sugar")),
                    chat=("The usual latte please, whole milk, less sugar.", "Ordered from Brew Lab.")),
                rec("2025-04-01", review(5, "Very quiet foot massage place, I fell asleep. Loved it.")),
            ),
            preferences=_U1_PREFS_BEFORE,
        ),
        Sub(
            kind="hotel", day="2025-04-18", clock="14:00:00", task_label="ota - hotel",
            instruction="Book me a hotel in Hangzhou for tomorrow night.",
            merchants=("West Lake Grand Hotel", "Wulin Square Hotel", "Hangzhou Riverside Inn",
                       "Qiantang Business Hotel", "Xixi Garden Hotel", "Lakeview Boutique Hotel"),
            items=("King Room", "Queen Room"), destination="Hangzhou", travel_date="2025-04-19",
            dims=(
                Dim("merchant", "quiet", ("nightclub nearby", "lively bar street"), "The hotel is quiet",
                    "a noisy neighbourhood; the user wants quiet hotels"),
                Dim("product", "high floor", ("low floor",), "The room is on a high floor",
                    "a low floor room; the user prefers high floor rooms"),
                Dim("product", "non-smoking", ("smoking",), "The room is non-smoking",
                    "a smoking room; the user wants non-smoking rooms"),
                MinScore(4.5, "The hotel is rated at least 4.5", "rated below the user's 4.5 floor"),
            ),
            popular_breaks=0, price=(520, 880),
            history=(
                rec("2025-04-07", search("Hangzhou hotels"), browse("West Lake hotels"),
                    chat=("Next time I travel, get me a quiet hotel, high floor, non-smoking. The last one was "
                          "next to a nightclub and I could not sleep.",
                          "Understood: quiet hotels, high floor and non-smoking rooms.")),
                rec("2025-04-10", order("delivery", "Brew Lab", ("Whole Milk Flat White", 30, 1),
                                        tags=("coffee", "whole milk", "less sugar"))),
                rec("2025-04-12", order("instore", "Lotus Wellness", ("Full Body Massage Voucher", 168, 1),
                                        tags=("massage", "full body massage"), note="gift for my mother")),
                rec("2025-04-15", review(4, "The high floor room had a great view and it was quiet.")),
            ),
            preferences=_U1_PREFS_BEFORE,
        ),
        Sub(
            kind="delivery", day="2025-05-20", clock="15:10:00", task_label="delivery - afternoon coffee",
            instruction="Get me a coffee at the office, I need a pick-me-up.",
            merchants=("Starlight Coffee Roasters", "Oatly Corner Cafe", "Corner Grind", "Green Bean Lab",
                       "Brew Lab", "Daily Cup Express"),
            items=("{} Latte", "{} Flat White"), product_tags=("coffee",), merchant_tags=("coffee",),
            dims=(
                Dim("product", "oat milk", ("whole milk", "skim milk"), "The coffee is made with oat milk",
                    "not oat milk; the user switched to oat milk and no longer drinks whole milk"),
                Dim("product", "less sugar", ("full sugar",), "The coffee is made with less sugar",
                    "full sugar; the user takes less sugar"),
                MinScore(4.5, "The coffee shop is rated at least 4.5", "rated below the user's 4.5 floor"),
            ),
            popular_breaks=0, price=(24, 40), address="work",
            history=(
                rec("2025-04-25", order("delivery", "Brew Lab", ("Oat Milk Latte", 30, 1),
                                        tags=("coffee", "oat milk", "less sugar")),
                    chat=("My stomach has been upset after every latte. The doctor says I'm lactose intolerant, "
                          "so no more whole milk for me, switch me to oat milk from now on.",
                          "Got it, oat milk from now on. I ordered an oat milk latte with less sugar.")),
                rec("2025-05-02", review(5, "Oat milk flat white, creamy and no stomach ache. Not going back.")),
                rec("2025-05-08", order("delivery", "Corner Grind", ("Whole Milk Latte", 26, 1),
                                        tags=("coffee", "whole milk"), note="for my husband"),
                    chat=("A whole milk latte for my husband please, he is working from home today.",
                          "Ordered for your husband.")),
                rec("2025-05-12", search("oat milk"), browse("cafes near Caobao Road")),
                rec("2025-05-15", order("delivery", "Sweet Harbour Desserts", ("Egg Tart", 12, 2),
                                        tags=("dessert", "less sugar"))),
            ),
            preferences=_U1_PREFS_AFTER,
            changes=({"date": "2025-04-25", "type": "modify", "category": "Food & drink",
                      "old": "whole milk in coffee", "new": "oat milk in coffee"},
                     {"date": "2025-04-25", "type": "add", "category": "Food & drink",
                      "new": "no whole milk anymore (lactose intolerant)"}),
        ),
        Sub(
            kind="reservation", day="2025-06-12", clock="11:00:00", task_label="instore - family dinner",
            instruction="Book a table for my parents' anniversary dinner this weekend.",
            merchants=("Sichuan Fire Hotpot", "Jade Garden Cantonese", "Golden Dragon Dim Sum",
                       "Canton Moon Restaurant", "Harbour Seafood Bistro", "Old Shanghai Kitchen"),
            items=("Set Dinner for Two", "Family Set Dinner"), product_tags=("dinner",),
            merchant_tags=("restaurant",),
            dims=(
                Dim("merchant", "Cantonese", ("Sichuan", "Shanghainese"), "The restaurant serves Cantonese cuisine",
                    "not Cantonese, the cuisine the user's family prefers"),
                Dim("merchant", "quiet", ("lively",), "The restaurant is quiet",
                    "a lively, noisy room; the user wants quiet restaurants for family dinners"),
                MinScore(4.5, "The restaurant is rated at least 4.5", "rated below the user's 4.5 floor"),
            ),
            popular_breaks=0, price=(188, 588), visit_time="2025-06-14 18:30", party=5,
            intention="There will be 5 of us, this Saturday at 6:30 pm.",
            history=(
                rec("2025-05-24", order("instore", "Jade Garden Cantonese", ("Dim Sum Set", 168, 1),
                                        tags=("restaurant", "Cantonese", "quiet")),
                    chat=("Find somewhere quiet with Cantonese food for dinner with my parents.",
                          "Jade Garden Cantonese is quiet and rated 4.7; I reserved a table.")),
                rec("2025-05-30", review(5, "Quiet room, light Cantonese dishes, my parents loved it.")),
                rec("2025-06-03", order("delivery", "Oatly Corner Cafe", ("Oat Milk Latte", 30, 1),
                                        tags=("coffee", "oat milk", "less sugar"))),
                rec("2025-06-07", search("hotpot near Jing'an"), browse("Sichuan restaurants")),
                rec("2025-06-09", chat=("My dad can't handle spicy food and hates lively places, keep family "
                                        "dinners quiet.", "Noted: quiet places for family dinners.")),
            ),
            preferences=_U1_PREFS_AFTER,
        ),
    ),
)

_U2_PREFS_BEFORE = {
    "Food": ["spicy food", "beef dishes", "keeps weekday lunch under 40 yuan"],
    "Travel": ["morning departure trains", "second class seats on trains"],
    "Grooming": ["scalp massage with a haircut", "no hair dye or perm",
                 "only goes to salons rated at least 4.5"],
    "Drinks": ["less sugar in team drinks", "less ice"],
}
_U2_PREFS_AFTER = {**_U2_PREFS_BEFORE, "Food": [
    "mild food (gastritis)", "avoids spicy food", "beef dishes", "keeps weekday lunch under 40 yuan"]}

U2 = User(
    profile={
        "user_id": "U100002", "name": "Zhang Wei", "occupation": "software engineer", "gender": "male",
        "birth_date": "1988-07-05", "city": "Hangzhou",
        "home_address": "Unit 601, Building 9, Lvyuan Community, 35 Wenyi Road, Xihu District, Hangzhou",
        "work_address": "Floor 7, Building B, Haichuang Park, 999 Wenyi West Road, Yuhang District, Hangzhou",
        "family": ["married", "one son aged 5"], "hometown": "Wenzhou, Zhejiang", "education": "Bachelor's degree",
        "allergies": "none",
    },
    home=(120.1287, 30.2836), work=(120.0214, 30.2798), start="2025-01-10",
    subtasks=(
        Sub(
            kind="delivery", day="2025-02-17", clock="11:30:00", task_label="delivery - weekday lunch",
            instruction="Order me lunch to the office.",
            merchants=("Premium Noodle Bar", "Lanzhou Beef Noodles", "Uncle Li's Kitchen", "Hunan Rice House",
                       "Chongqing Street Food", "Golden Bowl Canteen"),
            items=("{} Noodles", "{} Rice Bowl"), name_dims=2, product_tags=("lunch",), merchant_tags=("fast food",),
            dims=(
                Dim("product", "spicy", ("mild",), "The lunch is spicy", "a mild dish; the user loves spicy food"),
                Dim("product", "beef", ("pork", "chicken"), "The lunch is a beef dish",
                    "not beef, the meat the user prefers"),
                MaxPrice(40, "The lunch costs at most 40 yuan", "above the user's 40 yuan weekday lunch budget"),
            ),
            popular_breaks=2, price=(26, 38), address="work",
            history=(
                rec("2025-01-14", order("delivery", "Lanzhou Beef Noodles", ("Spicy Beef Noodles", 32, 1),
                                        tags=("lunch", "spicy", "beef")),
                    chat=("Something spicy with beef for lunch, under 40 yuan, it's a weekday.",
                          "Spicy beef noodles from Lanzhou Beef Noodles, 32 yuan.")),
                rec("2025-01-20", review(5, "The spicy beef rice bowl hits the spot, great value.")),
                rec("2025-01-27", order("delivery", "Golden Bowl Canteen", ("Kids Chicken Rice", 22, 1),
                                        tags=("mild", "chicken"), note="for my son")),
                rec("2025-02-05", search("pork buns"), browse("dim sum shops")),
                rec("2025-02-10", chat=("Keep weekday lunch under 40 yuan please, I'm saving up.",
                                        "Will do, weekday lunches under 40 yuan.")),
            ),
            preferences=_U2_PREFS_BEFORE,
        ),
        Sub(
            kind="train", day="2025-03-20", clock="20:00:00", task_label="ota - family train trip",
            instruction="Book train tickets to Shanghai for our family trip.",
            merchants=("G7502", "G7364", "G7512", "G7336", "D3126", "G7540"),
            items=("seat",), destination="Shanghai", travel_date="2025-03-22", quantity=3,
            intention="We want to go this Saturday, the three of us.",
            dims=(
                Dim("merchant", "morning departure", ("afternoon departure", "evening departure"),
                    "The train departs in the morning", "not a morning train; the user prefers morning trains"),
                Dim("product", "second class", ("first class", "business class"), "The seats are second class",
                    "not second class, the seat class the user always books"),
            ),
            popular_breaks=0, price=(73, 110),
            history=(
                rec("2025-02-21", order("ota", "12306", ("G7502 Hangzhou-Shanghai second class", 73, 1),
                                        tags=("train", "second class", "morning departure")),
                    chat=("Morning train to Shanghai please, second class is fine, first class is a waste of "
                          "money.", "Booked G7502 at 08:05, second class.")),
                rec("2025-02-28", review(4, "Morning departure meant I had the whole day in Shanghai.")),
                rec("2025-03-05", order("delivery", "Lanzhou Beef Noodles", ("Spicy Beef Noodles", 32, 1),
                                        tags=("lunch", "spicy", "beef"))),
                rec("2025-03-09", search("business class upgrade"), browse("Shanghai Disneyland tickets")),
            ),
            preferences=_U2_PREFS_BEFORE,
        ),
        Sub(
            kind="delivery", day="2025-04-22", clock="19:00:00", task_label="delivery - dinner at home",
            instruction="Order me dinner at home tonight.",
            merchants=("Chongqing Street Food", "Gentle Bowl", "Sichuan Spice House", "Uncle Li's Kitchen",
                       "Lanzhou Beef Noodles", "Harvest Porridge"),
            items=("{} Noodles", "{} Rice Bowl", "{} Congee"), name_dims=2, product_tags=("dinner",),
            merchant_tags=("fast food",),
            dims=(
                Dim("product", "mild", ("spicy", "extra spicy"), "The dinner is mild, not spicy",
                    "spicy; the user has gastritis and now avoids spicy food"),
                Dim("product", "beef", ("pork", "chicken"), "The dinner is a beef dish",
                    "not beef, the meat the user prefers"),
                MinScore(4.5, "The restaurant is rated at least 4.5", "rated below 4.5"),
            ),
            popular_breaks=0, price=(28, 39), address="home",
            history=(
                rec("2025-03-26", order("delivery", "Chongqing Street Food", ("Extra Spicy Beef Hotpot Rice", 36, 1),
                                        tags=("dinner", "extra spicy", "beef"))),
                rec("2025-04-02", chat=("I was diagnosed with gastritis. The doctor said no more spicy food, "
                                        "I have to eat mild food from now on.",
                                        "Sorry to hear that. I'll only suggest mild dishes.")),
                rec("2025-04-06", order("delivery", "Gentle Bowl", ("Mild Beef Congee", 30, 1),
                                        tags=("dinner", "mild", "beef")),
                    chat=("Mild beef congee please, and only from places rated 4.5 or higher.",
                          "Ordered a mild beef congee from Gentle Bowl, rated 4.7.")),
                rec("2025-04-12", order("delivery", "Sichuan Spice House", ("Spicy Chicken Wings", 45, 2),
                                        tags=("spicy", "chicken"), note="for my friends watching the game")),
                rec("2025-04-18", review(5, "Mild beef noodles, gentle on my stomach.")),
            ),
            preferences=_U2_PREFS_AFTER,
            changes=({"date": "2025-04-02", "type": "modify", "category": "Food", "old": "spicy food",
                      "new": "mild food (gastritis)"},
                     {"date": "2025-04-02", "type": "add", "category": "Food", "new": "avoids spicy food"}),
        ),
        Sub(
            kind="instore_product", day="2025-05-15", clock="18:00:00", task_label="instore - haircut",
            instruction="I need a haircut this weekend, buy me a voucher.",
            merchants=("Star Style Salon", "Urban Barber", "Classic Cuts", "Gentlemen's Corner", "Hair Studio 9",
                       "Quick Trim"),
            items=("Haircut + {} Voucher",), product_tags=("haircut",), merchant_tags=("salon",),
            dims=(
                Dim("product", "scalp massage", ("hair styling",), "The voucher includes a scalp massage",
                    "no scalp massage, which the user always takes with a haircut"),
                Dim("product", None, ("hair dye", "perm"), "The voucher does not include hair dye or a perm",
                    "includes hair dye or a perm; the user never dyes his hair"),
                MinScore(4.5, "The salon is rated at least 4.5", "rated below the user's 4.5 floor"),
            ),
            popular_breaks=1, price=(58, 168),
            history=(
                rec("2025-04-26", order("instore", "Urban Barber", ("Haircut Voucher with Scalp Massage", 78, 1),
                                        tags=("haircut", "scalp massage")),
                    chat=("Haircut with a scalp massage like last time, and no hair dye or perm, I never dye my hair.",
                          "Urban Barber, haircut with scalp massage, no dye.")),
                rec("2025-05-02", review(5, "The scalp massage after the haircut was the best part.")),
                rec("2025-05-06", search("perm for women"), browse("kids haircut")),
                rec("2025-05-10", chat=("Only book salons rated at least 4.5, the last cheap one ruined my hair.",
                                        "Noted: salons rated 4.5 or above.")),
            ),
            preferences=_U2_PREFS_AFTER,
        ),
        Sub(
            kind="delivery", day="2025-06-18", clock="14:30:00", task_label="delivery - team drinks",
            instruction="Order some fruit tea to the office for the team.",
            merchants=("Tea Palace", "Fresh Leaf", "Fruit Bar", "Sunny Tea Lab", "Juicy Hour", "Tea Time"),
            items=("Lemon Fruit Tea", "Peach Fruit Tea", "Grape Fruit Tea"), name_dims=0,
            product_tags=("fruit tea",), merchant_tags=("drinks",),
            dims=(
                Dim("product", "less sugar", ("full sugar",), "The fruit tea is made with less sugar",
                    "full sugar; the user orders team drinks with less sugar"),
                Dim("product", "less ice", ("regular ice", "extra ice"), "The fruit tea is made with less ice",
                    "not less ice"),
            ),
            popular_breaks=0, price=(14, 24), address="work", quantity=6,
            intention="There are 6 of us in the team today.",
            history=(
                rec("2025-05-22", order("delivery", "Fresh Leaf", ("Lemon Fruit Tea", 16, 5),
                                        tags=("fruit tea", "less sugar", "less ice")),
                    chat=("Fruit tea for the team, less sugar and less ice for everyone.",
                          "Five lemon fruit teas, less sugar, less ice.")),
                rec("2025-05-29", review(4, "Less ice means more tea, good call.")),
                rec("2025-06-05", order("delivery", "Juicy Hour", ("Mango Smoothie", 22, 1),
                                        tags=("full sugar", "extra ice"))),
                rec("2025-06-10", order("delivery", "Gentle Bowl", ("Mild Beef Noodles", 30, 1),
                                        tags=("dinner", "mild", "beef"))),
            ),
            preferences=_U2_PREFS_AFTER,
        ),
    ),
)

_U3_PREFS_BEFORE = {
    "Food": ["half sugar milk tea", "tapioca pearls", "allergic to mango", "spicy food"],
    "Travel": ["no red-eye flights", "checked bag included", "economy class",
               "hotel budget under 300 yuan a night", "near metro", "rooms with a window"],
    "Leisure": ["student discount", "KTV near metro"],
}
_U3_PREFS_AFTER = {**_U3_PREFS_BEFORE, "Food": [
    "half sugar milk tea", "tapioca pearls", "allergic to mango", "spicy food", "vegetarian, no meat"]}

U3 = User(
    profile={
        "user_id": "U100003", "name": "Chen Jing", "occupation": "graduate student", "gender": "female",
        "birth_date": "1999-11-20", "city": "Chengdu",
        "home_address": "Room 305, Dorm 12, Wangjiang Campus, 24 South Section 1 Yihuan Road, Wuhou District, "
                        "Chengdu",
        "work_address": "School of Computer Science, Sichuan University, 29 Wangjiang Road, Wuhou District, "
                        "Chengdu",
        "family": ["single", "one younger brother"], "hometown": "Leshan, Sichuan", "education": "Master's student",
        "allergies": "mango allergy",
    },
    home=(104.0851, 30.6312), work=(104.0877, 30.6298), start="2025-01-15",
    subtasks=(
        Sub(
            kind="delivery", day="2025-03-05", clock="15:00:00", task_label="delivery - milk tea",
            instruction="Get me a milk tea.",
            merchants=("Chagee Premium", "Tea Stone", "Happy Lemon", "CoCo Fresh", "Yihetang", "Mixue"),
            items=("{} Milk Tea", "{} Oolong Milk Tea"), product_tags=("milk tea",), merchant_tags=("drinks",),
            dims=(
                Dim("product", "half sugar", ("full sugar", "no sugar"), "The milk tea is half sugar",
                    "not half sugar, the sweetness the user orders"),
                Dim("product", "tapioca pearls", ("coconut jelly", "pudding"), "The milk tea has tapioca pearls",
                    "no tapioca pearls, the topping the user likes"),
                Dim("product", None, ("mango",), "The milk tea contains no mango (the user is allergic)",
                    "contains mango; the user is allergic to mango"),
            ),
            popular_breaks=2, price=(12, 22), address="home",
            history=(
                rec("2025-01-18", order("delivery", "Tea Stone", ("Brown Sugar Milk Tea", 15, 1),
                                        tags=("milk tea", "half sugar", "tapioca pearls")),
                    chat=("Milk tea with tapioca pearls, half sugar please.", "Ordered, half sugar with pearls.")),
                rec("2025-01-29", review(5, "Chewy tapioca pearls, half sugar is perfect.")),
                rec("2025-02-08", order("delivery", "Mixue", ("Mango Slush", 8, 2), tags=("mango",),
                                        note="for my roommate")),
                rec("2025-02-15", search("coconut jelly milk tea"), browse("new tea shops in Wuhou")),
                rec("2025-02-25", chat=("Careful, I'm allergic to mango, never anything with mango for me.",
                                        "Understood, no mango.")),
            ),
            preferences=_U3_PREFS_BEFORE,
        ),
        Sub(
            kind="flight", day="2025-04-10", clock="10:00:00", task_label="ota - flight",
            instruction="Book me a flight to Beijing on April 18.",
            merchants=("3U8885", "CA4193", "3U8887", "CA4117", "MU5413", "HU7147"),
            items=("seat",), destination="Beijing", travel_date="2025-04-18",
            dims=(
                Dim("merchant", None, ("red-eye",), "The flight is not a red-eye flight",
                    "a red-eye flight; the user avoids them"),
                Dim("merchant", "checked bag included", ("no checked bag",), "The fare includes a checked bag",
                    "no checked bag; the user always travels with a checked bag"),
                Dim("product", "economy", ("business",), "The seat is economy class",
                    "business class; the user flies economy"),
            ),
            popular_breaks=0, price=(680, 1100),
            history=(
                rec("2025-03-08", order("ota", "Sichuan Airlines", ("3U8897 Chengdu-Shanghai economy", 720, 1),
                                        tags=("flight", "economy", "checked bag included")),
                    chat=("Economy with a checked bag, and please never a red-eye flight again, I was a zombie "
                          "for two days.", "Booked a daytime economy flight with a checked bag.")),
                rec("2025-03-15", review(4, "Daytime flight, checked bag included, smooth trip.")),
                rec("2025-03-22", order("delivery", "Tea Stone", ("Brown Sugar Milk Tea", 15, 1),
                                        tags=("milk tea", "half sugar", "tapioca pearls"))),
                rec("2025-04-02", search("cheap red-eye flights"), browse("Beijing hostels")),
            ),
            preferences=_U3_PREFS_BEFORE,
        ),
        Sub(
            kind="reservation", day="2025-05-08", clock="16:00:00", task_label="instore - KTV with friends",
            instruction="Book a KTV room for me and my friends.",
            merchants=("Melody Luxury KTV", "Sing Star KTV", "Party World KTV", "Echo KTV", "Mic Drop KTV",
                       "Golden Voice KTV"),
            items=("KTV Package",), product_tags=("KTV",), merchant_tags=("KTV",),
            dims=(
                Dim("merchant", "student discount", ("members only",), "The KTV offers a student discount",
                    "no student discount; the user is a student on a budget"),
                Dim("merchant", "near metro", ("suburban",), "The KTV is near a metro station",
                    "far from the metro; the user gets around by metro"),
            ),
            popular_breaks=0, price=(99, 399), visit_time="2025-05-10 20:00", party=8,
            intention="There will be 8 of us, this Saturday at 8 pm.",
            history=(
                rec("2025-04-19", order("instore", "Sing Star KTV", ("Student Night Package", 128, 1),
                                        tags=("KTV", "student discount", "near metro")),
                    chat=("A KTV near metro with a student discount please, we are all broke students.",
                          "Sing Star KTV, near metro, with a student discount.")),
                rec("2025-04-24", review(5, "Student discount and two minutes from the metro.")),
                rec("2025-04-30", search("luxury KTV"), browse("members only clubs")),
                rec("2025-05-03", order("delivery", "Tea Stone", ("Taro Milk Tea", 16, 1),
                                        tags=("milk tea", "half sugar", "tapioca pearls"))),
            ),
            preferences=_U3_PREFS_BEFORE,
        ),
        Sub(
            kind="delivery", day="2025-06-03", clock="12:00:00", task_label="delivery - lunch at school",
            instruction="Order me lunch to school.",
            merchants=("Chengdu Spicy Pot", "Veggie Delight", "Green Bowl", "Lao Ma Noodles", "Campus Canteen",
                       "Sichuan Flavour"),
            items=("{} Noodles", "{} Rice Bowl"), name_dims=2, product_tags=("lunch",),
            merchant_tags=("fast food",),
            dims=(
                Dim("product", "spicy", ("mild",), "The lunch is spicy", "mild; the user loves spicy food"),
                Dim("product", "vegetarian", ("beef", "pork"), "The lunch is vegetarian",
                    "contains meat; the user is vegetarian now"),
            ),
            popular_breaks=1, price=(16, 30), address="work",
            history=(
                rec("2025-05-12", order("delivery", "Lao Ma Noodles", ("Spicy Beef Noodles", 22, 1),
                                        tags=("lunch", "spicy", "beef"))),
                rec("2025-05-18", chat=("I've gone vegetarian, no more meat for me, I feel much better.",
                                        "Great, vegetarian dishes from now on.")),
                rec("2025-05-21", order("delivery", "Veggie Delight", ("Spicy Mapo Tofu Rice", 20, 1),
                                        tags=("lunch", "spicy", "vegetarian"))),
                rec("2025-05-25", order("delivery", "Campus Canteen", ("Braised Pork Rice", 18, 1),
                                        tags=("pork",), note="for my brother")),
                rec("2025-05-30", review(5, "Spicy vegetarian noodles, so good I didn't miss the meat.")),
            ),
            preferences=_U3_PREFS_AFTER,
            changes=({"date": "2025-05-18", "type": "add", "category": "Food", "new": "vegetarian, no meat"},),
        ),
        Sub(
            kind="hotel", day="2025-07-01", clock="09:00:00", task_label="ota - hotel",
            instruction="Find me a hotel in Chongqing for this Saturday night.",
            merchants=("Jiefangbei Luxury Hotel", "Yuzhong Metro Inn", "Hongyadong Hostel", "Ciqikou Guesthouse",
                       "Guanyinqiao Express Hotel", "Nanping Budget Hotel"),
            items=("Queen Room", "Twin Room"), destination="Chongqing", travel_date="2025-07-05",
            dims=(
                MaxPrice(300, "The room costs at most 300 yuan a night", "above the user's 300 yuan budget"),
                Dim("merchant", "near metro", ("suburban",), "The hotel is near a metro station",
                    "far from the metro"),
                Dim("product", None, ("no window",), "The room has a window", "a windowless room"),
            ),
            popular_breaks=0, price=(168, 288),
            history=(
                rec("2025-06-10", chat=("For trips keep the hotel under 300 yuan a night, near metro, and the "
                                        "room must have a window, windowless rooms make me feel trapped.",
                                        "Noted: under 300 yuan, near metro, with a window.")),
                rec("2025-06-14", order("delivery", "Veggie Delight", ("Spicy Tofu Noodles", 19, 1),
                                        tags=("lunch", "spicy", "vegetarian"))),
                rec("2025-06-20", search("Chongqing luxury hotels"), browse("Hongyadong night view")),
                rec("2025-06-25", review(4, "Budget hotel near metro, clean room with a window.")),
            ),
            preferences=_U3_PREFS_AFTER,
        ),
    ),
)

_U4_PREFS_BEFORE = {
    "Travel": ["hotels with a gym", "smoking rooms", "hotels rated at least 4.5"],
    "Drinks": ["green tea", "no sugar"],
    "Car": ["hand wash only", "interior cleaning"],
    "Dining": ["private room for client dinners", "no seafood (gout)"],
}
_U4_PREFS_AFTER = {**_U4_PREFS_BEFORE, "Travel": [
    "hotels with a gym", "non-smoking rooms (quit smoking)", "hotels rated at least 4.5"]}

U4 = User(
    profile={
        "user_id": "U100004", "name": "Wang Hao", "occupation": "sales manager", "gender": "male",
        "birth_date": "1979-02-14", "city": "Beijing",
        "home_address": "Apartment 1203, Tower 2, Wangjing Garden, 8 Futong East Street, Chaoyang District, Beijing",
        "work_address": "Floor 21, China World Tower B, 1 Jianguomenwai Avenue, Chaoyang District, Beijing",
        "family": ["married", "two daughters"], "hometown": "Jinan, Shandong", "education": "MBA",
        "allergies": "gout",
    },
    home=(116.4741, 39.9961), work=(116.4599, 39.9087), start="2025-01-20",
    subtasks=(
        Sub(
            kind="hotel", day="2025-02-24", clock="09:30:00", task_label="ota - business hotel",
            instruction="Book me a hotel in Shanghai for Wednesday night, I'm on a business trip.",
            merchants=("Bund Grand Hotel", "Lujiazui Suites", "Pudong Executive Hotel", "Jing'an Business Inn",
                       "Hongqiao Airport Hotel", "Xintiandi Hotel"),
            items=("King Room", "Deluxe Room"), destination="Shanghai", travel_date="2025-02-26",
            dims=(
                Dim("merchant", "gym", ("no gym",), "The hotel has a gym", "no gym; the user works out on trips"),
                Dim("product", "smoking", ("non-smoking",), "The room is a smoking room",
                    "a non-smoking room; the user smokes"),
                MinScore(4.5, "The hotel is rated at least 4.5", "rated below 4.5"),
            ),
            popular_breaks=0, price=(680, 1280),
            history=(
                rec("2025-01-23", order("ota", "Wangfujing Business Hotel", ("King Room, Smoking", 760, 1),
                                        tags=("hotel", "gym", "smoking")),
                    chat=("A smoking room please, and the hotel must have a gym.", "Booked a smoking king room "
                          "at a hotel with a gym.")),
                rec("2025-02-02", review(5, "Good gym, smoking room as requested, rated 4.7.")),
                rec("2025-02-09", order("ota", "Sanya Family Resort", ("Family Suite, Non-smoking", 1580, 1),
                                        tags=("hotel", "non-smoking", "pool"), note="for my wife and daughters")),
                rec("2025-02-16", search("hotels rated at least 4.5 Shanghai"), browse("Bund hotels")),
            ),
            preferences=_U4_PREFS_BEFORE,
        ),
        Sub(
            kind="delivery", day="2025-03-18", clock="14:45:00", task_label="delivery - afternoon tea",
            instruction="Order some tea to the office for this afternoon.",
            merchants=("Tea Palace", "Wu Yutai", "Heytea", "Lelecha", "Zhang Yiyuan Tea House", "Tea Stop"),
            items=("{}", "Premium {}"), product_tags=("tea",), merchant_tags=("drinks",),
            dims=(
                Dim("product", "green tea", ("black tea", "milk tea"), "The tea is green tea",
                    "not green tea, the tea the user drinks"),
                Dim("product", "no sugar", ("full sugar", "half sugar"), "The tea has no sugar",
                    "sweetened; the user takes tea without sugar"),
            ),
            popular_breaks=1, price=(15, 32), address="work",
            history=(
                rec("2025-02-25", order("delivery", "Wu Yutai", ("Longjing Green Tea", 22, 1),
                                        tags=("tea", "green tea", "no sugar")),
                    chat=("Green tea, no sugar, as always.", "Longjing green tea without sugar, on its way.")),
                rec("2025-03-03", order("delivery", "Heytea", ("Cheese Milk Tea", 29, 3),
                                        tags=("milk tea", "full sugar"), note="for my daughters")),
                rec("2025-03-08", review(5, "Clean green tea, no sugar, just right for the afternoon.")),
                rec("2025-03-12", search("black tea latte"), browse("tea gift boxes")),
            ),
            preferences=_U4_PREFS_BEFORE,
        ),
        Sub(
            kind="instore_product", day="2025-04-12", clock="10:00:00", task_label="instore - car wash",
            instruction="Buy me a car wash voucher for today.",
            merchants=("Jet Wash Station", "Detail Masters", "AutoShine Express", "Crystal Car Spa", "Clean Ride",
                       "Sparkle Auto"),
            items=("{} Car Wash Voucher",), product_tags=("car wash",), merchant_tags=("car wash",),
            dims=(
                Dim("merchant", "hand wash", ("automatic wash",), "The car wash is a hand wash",
                    "an automatic wash; the user only uses hand wash"),
                Dim("product", "interior cleaning", ("exterior only",), "The voucher includes interior cleaning",
                    "exterior only; the user wants the interior cleaned"),
            ),
            popular_breaks=0, price=(48, 128),
            history=(
                rec("2025-03-22", order("instore", "Detail Masters", ("Hand Wash with Interior Cleaning", 88, 1),
                                        tags=("car wash", "hand wash", "interior cleaning")),
                    chat=("Hand wash only, the automatic wash machines scratched my paint. And do the interior "
                          "cleaning too.", "Hand wash with interior cleaning booked at Detail Masters.")),
                rec("2025-03-29", review(5, "Careful hand wash and a spotless interior.")),
                rec("2025-04-04", order("delivery", "Wu Yutai", ("Longjing Green Tea", 22, 1),
                                        tags=("tea", "green tea", "no sugar"))),
                rec("2025-04-08", search("car wax"), browse("new energy vehicles")),
            ),
            preferences=_U4_PREFS_BEFORE,
        ),
        Sub(
            kind="hotel", day="2025-05-26", clock="08:00:00", task_label="ota - business hotel",
            instruction="Book me a hotel in Guangzhou for tomorrow night.",
            merchants=("Canton Tower Grand Hotel", "Baiyun Executive Inn", "Tianhe Business Hotel",
                       "Zhujiang New Town Hotel", "Pearl River Suites", "Liwan Hotel"),
            items=("King Room", "Deluxe Room"), destination="Guangzhou", travel_date="2025-05-27",
            dims=(
                Dim("merchant", "gym", ("no gym",), "The hotel has a gym", "no gym; the user works out on trips"),
                Dim("product", "non-smoking", ("smoking",), "The room is non-smoking",
                    "a smoking room; the user quit smoking"),
                MinScore(4.5, "The hotel is rated at least 4.5", "rated below 4.5"),
            ),
            popular_breaks=1, price=(620, 1180),
            history=(
                rec("2025-04-20", chat=("I quit smoking last month. From now on no smoking rooms, book non-smoking "
                                        "rooms only, the smell makes me want a cigarette.",
                                        "Congratulations! Non-smoking rooms from now on.")),
                rec("2025-04-28", order("ota", "Hangzhou Lakeside Hotel", ("King Room, Non-smoking", 820, 1),
                                        tags=("hotel", "gym", "non-smoking"))),
                rec("2025-05-06", review(5, "Non-smoking room, fresh air, the gym opened at 6.")),
                rec("2025-05-14", order("delivery", "Wu Yutai", ("Longjing Green Tea", 22, 2),
                                        tags=("tea", "green tea", "no sugar"))),
                rec("2025-05-20", search("Guangzhou hotels with a pool"), browse("Canton Fair hotels")),
            ),
            preferences=_U4_PREFS_AFTER,
            changes=({"date": "2025-04-20", "type": "modify", "category": "Travel", "old": "smoking rooms",
                      "new": "non-smoking rooms (quit smoking)"},),
        ),
        Sub(
            kind="reservation", day="2025-06-20", clock="10:00:00", task_label="instore - client dinner",
            instruction="Reserve a table for a client dinner.",
            merchants=("Ocean Pearl Seafood House", "Quanjude Roast Duck", "Beijing Courtyard Kitchen",
                       "Dadong Restaurant", "Harbour Seafood Bistro", "Old Beijing Noodle King"),
            items=("Banquet Set",), product_tags=("dinner",), merchant_tags=("restaurant",),
            dims=(
                Dim("merchant", "private room", ("open dining hall",), "The restaurant has a private room",
                    "no private room; the user hosts clients in private rooms"),
                Dim("merchant", None, ("seafood",), "The restaurant is not a seafood restaurant",
                    "a seafood restaurant; the user has gout and avoids seafood"),
                MinScore(4.5, "The restaurant is rated at least 4.5", "rated below 4.5"),
            ),
            popular_breaks=1, price=(888, 2888), visit_time="2025-06-24 18:00", party=8,
            intention="There will be 8 guests, next Tuesday at 6 pm.",
            history=(
                rec("2025-05-30", order("instore", "Quanjude Roast Duck", ("Banquet Set", 1688, 1),
                                        tags=("restaurant", "private room")),
                    chat=("Client dinner again, a private room please. And no seafood, my gout is back.",
                          "Quanjude with a private room, no seafood dishes.")),
                rec("2025-06-04", review(5, "The private room impressed the clients.")),
                rec("2025-06-10", order("delivery", "Ocean Pearl Seafood House", ("Steamed Crab", 168, 2),
                                        tags=("seafood",), note="for my wife's birthday")),
                rec("2025-06-15", search("seafood restaurants Beijing"), browse("Michelin restaurants")),
            ),
            preferences=_U4_PREFS_AFTER,
        ),
    ),
)

USERS = (U1, U2, U3, U4)


# ------------------------------------------------------------------------------------------ expansion

_CITY_CENTRES = {"Shanghai": (121.4737, 31.2304), "Hangzhou": (120.1551, 30.2741), "Chengdu": (104.0665, 30.5723),
                 "Beijing": (116.4074, 39.9042), "Chongqing": (106.5516, 29.5630), "Guangzhou": (113.2644, 23.1291)}
_STREETS = ("Renmin Road", "Jiefang Road", "Zhongshan Road", "Huaihai Road", "Nanjing Road", "Yan'an Road",
            "Wenhua Road", "Xinhua Road", "Heping Street", "Changjiang Road")
_DEPARTURES = {"morning departure": ("08:05", "09:40"), "afternoon departure": ("13:20", "15:10"),
               "evening departure": ("18:30", "20:05"), "red-eye": ("23:50", "01:00"), "": ("10:00", "15:00")}


_SEAT_PRICE = {"first class": 1.6, "business class": 3.0, "business": 2.6}


def _title(text: str) -> str:
    return " ".join(word if word.isupper() else word[:1].upper() + word[1:] for word in text.split())


class _Catalogue:
    """The merchants and products of one subtask, with which dimensions each one breaks."""

    def __init__(self, user: User, sub: Sub, rng: random.Random, uid: str, n: int):
        self.user, self.sub, self.rng, self.uid, self.n = user, sub, rng, uid, n
        self.merchants: list[dict[str, Any]] = []  # {"id", "name", "breaks": set, "score", "tags", "products"}

    # -- variants: a variant maps each dimension index to "good" or one of its bad phrases
    def _variant(self, breaks: dict[int, str]) -> dict[int, str]:
        return {i: breaks.get(i, "good") for i, _ in enumerate(self.sub.dims)}

    def _one_off(self, level: str, exclude: int | None = None) -> list[dict[int, str]]:
        out = []
        for i, dim in enumerate(self.sub.dims):
            if dim.level != level or i == exclude:
                continue
            bads = dim.bad if isinstance(dim, Dim) else ("bad",)
            for bad in bads:
                out.append({i: bad})
        return out

    def build(self) -> None:
        sub, rng = self.sub, self.rng
        count = len(sub.merchants)
        target_pos = rng.choice(range(3, count))
        popular_pos = rng.choice(range(0, 3))
        product_offs = self._one_off("product")
        merchant_offs = self._one_off("merchant")
        rng.shuffle(product_offs)
        rng.shuffle(merchant_offs)
        pb = sub.popular_breaks
        others = 0
        popular_dim = sub.dims[pb]
        popular_bad = popular_dim.bad[0] if isinstance(popular_dim, Dim) else "bad"
        for pos in range(count):
            if pos == target_pos:
                role, m_breaks = "target", {}
            elif pos == popular_pos:
                role = "popular"
                m_breaks = {pb: popular_bad} if sub.dims[pb].level == "merchant" else {}
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
                hero = {pb: popular_bad} if sub.dims[pb].level == "product" else {}
                products = [hero]
                products += [off for off in product_offs if off != hero][:2]
            else:
                if m_breaks:  # breaks a merchant dimension: may sell a product that is right in itself
                    products = [{}] + product_offs[:1]
                else:  # a compliant merchant: every product breaks a product dimension
                    products = product_offs[:2] or [{}]
                if len(product_offs) > 1:
                    both = {**product_offs[0], **product_offs[-1]}
                    if both not in products:
                        products.append(both)
            rotated = product_offs[1:] + product_offs[:1]
            product_offs[:] = rotated
            rng.shuffle(products)  # the target is not always a merchant's first product
            self.merchants.append({"role": role, "breaks": m_breaks,
                                   "variants": [self._variant({**m_breaks, **p}) for p in products]})
        self._name_merchants()
        self._check_unique()

    def _carried(self, merchant: dict[str, Any]) -> set[str]:
        out = set()
        for i, dim in enumerate(self.sub.dims):
            if isinstance(dim, Dim) and dim.level == "merchant":
                phrase = _phrase(dim, merchant["breaks"].get(i, "good"))
                if phrase:
                    out.add(phrase.lower())
        return out

    def _name_merchants(self) -> None:
        """The spec lists the popular merchant's name first, the target's second, then the others; a name
        that mentions a merchant phrase (``Seafood``, ``Sichuan``) goes to a merchant that carries it."""
        phrases = {p.lower() for d in self.sub.dims if isinstance(d, Dim) and d.level == "merchant"
                   for p in (d.good, *d.bad) if p}

        def fits(name: str, merchant: dict[str, Any]) -> bool:
            mentioned = {p for p in phrases if p in name.lower()}
            return mentioned <= self._carried(merchant)

        popular, target, *others = self.sub.merchants
        for merchant in self.merchants:
            if merchant["role"] in ("popular", "target"):
                merchant["name"] = popular if merchant["role"] == "popular" else target
                if not fits(merchant["name"], merchant):
                    raise AssertionError(f"{self.uid} subtask {self.n}: name {merchant['name']!r} contradicts "
                                         f"its tags {sorted(self._carried(merchant))}")
        rest = list(others)
        for merchant in self.merchants:
            if merchant["role"] != "other":
                continue
            ranked = sorted(rest, key=lambda name: (not fits(name, merchant),
                                                    not any(p in name.lower() for p in self._carried(merchant))))
            merchant["name"] = ranked[0]
            rest.remove(ranked[0])
            if not fits(merchant["name"], merchant):
                raise AssertionError(f"{self.uid} subtask {self.n}: no fitting name for a merchant carrying "
                                     f"{sorted(self._carried(merchant))}")

    def _check_unique(self) -> None:
        winners = [(m["name"], v) for m in self.merchants for v in m["variants"]
                   if all(value == "good" for value in v.values())]
        if len(winners) != 1:
            raise AssertionError(f"{self.uid} subtask {self.n}: {len(winners)} candidates satisfy every rubric")


def _addr(rng: random.Random, city: str) -> str:
    return f"No. {rng.randint(1, 699)} {rng.choice(_STREETS)}, {city}"


def _near(rng: random.Random, point: tuple[float, float], km: float = 3.0) -> tuple[float, float]:
    dx, dy = rng.uniform(-km, km) / 96.0, rng.uniform(-km, km) / 111.0
    return round(point[0] + dx, 6), round(point[1] + dy, 6)


def _loc(rng: random.Random, city: str, point: tuple[float, float]) -> dict[str, Any]:
    lon, lat = _near(rng, point)
    return {"address": _addr(rng, city), "longitude": lon, "latitude": lat}


def _phrase(dim: Dim | MinScore | MaxPrice, value: str) -> str | None:
    """The phrase a candidate carries for a dimension value ("good" -> the good phrase)."""
    if not isinstance(dim, Dim):
        return None
    return dim.good if value == "good" else value


def build_subtask(user: User, n: int, previous_day: str) -> dict[str, Any]:
    """Expand one subtask spec into the official subtask dict (1-based ``n``)."""
    sub = user.subtasks[n - 1]
    uid = user.profile["user_id"]
    rng = random.Random(f"{SEED}:{uid}:{n}")
    domain, record_type = KINDS[sub.kind]
    city = user.profile["city"]
    where = sub.destination or city
    centre = _CITY_CENTRES[where] if sub.destination else user.home
    cat = _Catalogue(user, sub, rng, uid, n)
    cat.build()

    entities: dict[str, dict[str, Any]] = {}
    satisfying: dict[int, list[str]] = {i: [] for i in range(len(sub.dims))}  # ids meeting each dimension
    target_entity = target_product = ""
    used_scores: set[float] = set()
    for index, merchant in enumerate(cat.merchants):
        eid = f"{'S' if domain != 'ota' else sub.kind[0].upper()}{uid[1:]}{n:02d}{index + 1:02d}"
        role, breaks, name = merchant["role"], merchant["breaks"], merchant["name"]
        score = _score(sub, role, breaks, rng, used_scores)
        tags = list(sub.merchant_tags)
        for i, dim in enumerate(sub.dims):
            if dim.level == "merchant":
                phrase = _phrase(dim, breaks.get(i, "good"))
                if phrase:
                    tags.append(phrase)
                if breaks.get(i, "good") == "good" and not isinstance(dim, MinScore):
                    satisfying[i].append(eid)
            if isinstance(dim, MinScore) and score >= dim.threshold:
                satisfying[i].append(eid)
        if role == "popular":
            tags.append("popular")
        entity_type = "target" if role == "target" else "distraction"
        products = []
        variants = list(merchant["variants"])
        for k, variant in enumerate(variants):
            pid = f"P{uid[1:]}{n:02d}{index + 1:02d}{k + 1:02d}"
            product, is_target, reasons = _product(sub, variant, rng, pid, k, index)
            for i, dim in enumerate(sub.dims):
                if dim.level == "product" and variant[i] == "good":
                    satisfying[i].append(pid)
            if is_target and role == "target":
                target_product = pid
            product["product_type"] = "target" if (is_target and role == "target") else "distraction"
            merchant_reasons = [sub.dims[i].reason for i in breaks]
            if product["product_type"] == "distraction":
                product["distraction_reason"] = "; ".join(merchant_reasons + reasons) or "not the target"
            products.append(product)
        if sub.kind in ("hotel", "train", "flight") and role == "target":
            # A date distractor: the target offer on the wrong day.
            twin = dict(next(p for p in products if p["product_id"] == target_product))
            twin["product_id"] = twin["product_id"][:-2] + f"{len(products) + 1:02d}"
            twin["date"] = _shift(sub.travel_date or sub.day, 1)
            twin["product_type"] = "distraction"
            twin["distraction_reason"] = "the wrong date"
            products.append(twin)
        if role == "target":
            target_entity = eid
        entities[eid] = _entity(sub, domain, eid, name, score, tags, products, rng, where, centre,
                                entity_type, breaks)
    ids = list(entities)
    environment = _environment(user, sub, domain, entities, rng, where)
    rubrics, checks = _rubrics(user, sub, record_type, satisfying, ids)
    start = previous_day
    end = _shift(sub.day, -1)
    subtask: dict[str, Any] = {
        "task_turn_num": f"{uid}_{n:02d}",
        "subtask_id": f"sub_{uid}_{n}",
        "domain": domain,
        "task": sub.task_label,
        "current_time": sub.day,
        "start_date": start,
        "end_date": end,
        "instruction": sub.instruction,
        "interactions": [dict(record) for record in sub.history],
        "environment": environment,
        "user_scenario": {
            "user_profile": dict(user.profile),
            "personalized_preference_memory": {
                "current": {k: list(v) for k, v in sub.preferences.items()},
                "preference_tag_change_history": [dict(c) for c in sub.changes],
            },
        },
        "evaluation_criteria": {"expected_states": [{"state_rubrics": rubrics}], "overall_rubrics": list(rubrics)},
        "target_product_ids": [target_product] if sub.kind != "reservation" else [target_entity],
        "skill_tested": ["proactive"] if sub.intention else ["personalize"],
        "user_intention": sub.intention,
        "rubric_checks": checks,
    }
    return subtask


def _score(sub: Sub, role: str, breaks: dict[int, str], rng: random.Random, used: set[float]) -> float:
    floor = next((d.threshold for d in sub.dims if isinstance(d, MinScore)), None)
    breaks_floor = any(isinstance(sub.dims[i], MinScore) for i in breaks)
    if role == "popular":
        return 4.9
    if role == "target":
        return 4.6 if floor is None or floor <= 4.6 else 4.8
    if breaks_floor:
        pool = [4.0, 4.1, 4.2, 4.3, 4.4]
    else:
        pool = [4.5, 4.6, 4.7, 4.8] if floor is not None else [4.2, 4.4, 4.5, 4.7, 4.8]
    free = [s for s in pool if s not in used] or pool
    score = rng.choice(free)
    used.add(score)
    return score


def _product(sub: Sub, variant: dict[int, str], rng: random.Random, pid: str, k: int,
             index: int) -> tuple[dict[str, Any], bool, list[str]]:
    """One product (dish, voucher, room, seat) for a variant; returns it, whether it is right, and why not."""
    phrases: list[str] = []
    reasons: list[str] = []
    lo, hi = sub.price
    price = float(rng.randint(lo, hi))
    for i, dim in enumerate(sub.dims):
        if dim.level != "product":
            continue
        if variant[i] != "good":
            reasons.append(dim.reason)
        if isinstance(dim, MaxPrice):
            price = float(rng.randint(lo, min(hi, int(dim.cap)))) if variant[i] == "good" else \
                float(rng.randint(int(dim.cap) + 8, int(dim.cap) * 2))
            continue
        phrase = _phrase(dim, variant[i])
        if phrase:
            phrases.append(phrase)
    is_target = all(value == "good" for value in variant.values())
    item = sub.items[(index + k) % len(sub.items)]
    if sub.kind == "hotel":
        room = ", ".join([item] + [_title(p) for p in phrases])
        return {"product_id": pid, "room_type": room, "date": sub.travel_date, "price": price,
                "quantity": rng.randint(2, 6)}, is_target, reasons
    if sub.kind in ("train", "flight"):
        seat = phrases[0] if phrases else "economy"
        price = float(round(price * _SEAT_PRICE.get(seat, 1.0)))
        return {"product_id": pid, "seat_type": seat, "date": sub.travel_date, "price": price,
                "quantity": rng.randint(5, 30)}, is_target, reasons
    # Dishes, drinks, vouchers: the leading phrases fill the item template; all phrases are tags.
    lead, rest = phrases[:sub.name_dims], phrases[sub.name_dims:]
    filler = " ".join(_title(p) for p in lead)
    name = item.format(filler) if "{}" in item else f"{filler} {item}".strip()
    if rest:
        name += f" ({', '.join(rest)})"
    product = {"product_id": pid, "name": name, "price": price, "quantity": rng.randint(20, 99),
               "tags": list(sub.product_tags) + phrases}
    if sub.kind == "delivery":
        product["attributes"] = []
    return product, is_target, reasons


def _entity(sub: Sub, domain: str, eid: str, name: str, score: float, tags: list[str],
            products: list[dict[str, Any]], rng: random.Random, where: str, centre: tuple[float, float],
            entity_type: str, breaks: dict[int, str]) -> dict[str, Any]:
    reason = "; ".join(sub.dims[i].reason for i in breaks)
    marker: dict[str, Any] = {}
    if sub.kind == "delivery":
        for p in products:
            p["store_id"], p["store_name"] = eid, name
        marker = {"store_type": entity_type}
        body = {"store_id": eid, "name": name, "score": score, "location": _loc(rng, where, centre), "tags": tags,
                "products": products}
    elif domain == "instore":
        for p in products:
            p["shop_id"], p["shop_name"] = eid, name
        if sub.kind == "reservation":
            for p in products:  # the menu is not what is decided in a reservation subtask
                p["product_type"] = "irrelevant"
                p.pop("distraction_reason", None)
        marker = {"shop_type": entity_type}
        body = {"shop_id": eid, "shop_name": name, "score": score, "location": _loc(rng, where, centre),
                "tags": tags, "enable_book": False, "book_price": 0.0, "enable_reservation": True,
                "products": products}
    elif sub.kind == "hotel":
        marker = {"hotel_type": entity_type}
        body = {"hotel_id": eid, "hotel_name": name, "score": score, "star_rating": 5 if score >= 4.7 else 4,
                "location": _loc(rng, where, centre), "tags": tags, "products": products}
    else:
        body = _transport(sub, eid, name, tags, products, rng)
        marker = {f"{sub.kind}_type": entity_type}
    body.update(marker)
    if entity_type == "distraction":
        body["distraction_reason"] = reason or "every product breaks a preference"
    return body


def _transport(sub: Sub, eid: str, number: str, tags: list[str], products: list[dict[str, Any]],
               rng: random.Random) -> dict[str, Any]:
    """A train or a flight from the user's city to the destination, timed to match its tags."""
    when = next((t for t in tags if t in _DEPARTURES), "")
    lo, hi = _DEPARTURES[when]
    hour = int(lo[:2]) + rng.randint(0, max(0, (int(hi[:2]) - int(lo[:2])) % 24))
    dep = f"{hour % 24:02d}:{rng.choice(['05', '20', '35', '50'])}"
    hours = 1 if sub.kind == "train" else 3
    arr = f"{(hour + hours) % 24:02d}:{dep[3:]}"
    origin = {"train": "Hangzhou", "flight": "Chengdu"}[sub.kind]
    dest = sub.destination or ""
    o_loc = _loc(rng, origin, _CITY_CENTRES[origin])
    d_loc = _loc(rng, dest, _CITY_CENTRES[dest])
    if sub.kind == "train":
        o_loc["address"] = f"{origin} East Railway Station, {origin}"
        d_loc["address"] = f"{dest} Hongqiao Railway Station, {dest}"
        return {"train_id": eid, "train_number": number, "departure_city": origin, "arrival_city": dest,
                "departure_station_location": o_loc, "arrival_station_location": d_loc,
                "departure_time": dep, "arrival_time": arr, "tags": tags, "products": products}
    o_loc["address"] = f"{origin} Shuangliu International Airport, {origin}"
    d_loc["address"] = f"{dest} Capital International Airport, {dest}"
    return {"flight_id": eid, "flight_number": number, "departure_city": origin, "arrival_city": dest,
            "departure_airport_location": o_loc, "arrival_airport_location": d_loc,
            "departure_time": dep, "arrival_time": arr, "tags": tags, "products": products}


def _environment(user: User, sub: Sub, domain: str, entities: dict[str, Any], rng: random.Random,
                 where: str) -> dict[str, Any]:
    profile = user.profile
    env: dict[str, Any] = {
        "time": f"{sub.day} {sub.clock}",
        "user_id": profile["user_id"],
        "weather": [{"city": where, "category": rng.choice(["sunny", "cloudy", "light rain"]),
                     "datetime": sub.travel_date or sub.day, "temperature": [rng.randint(8, 18), rng.randint(20, 30)],
                     "humidity": rng.randint(40, 85)}],
        "location": [
            {"address": profile["home_address"], "longitude": user.home[0], "latitude": user.home[1]},
            {"address": profile["work_address"], "longitude": user.work[0], "latitude": user.work[1]},
        ],
        "orders": {},
    }
    container = {"delivery": "stores", "instore_product": "shops", "reservation": "shops", "hotel": "hotels",
                 "train": "trains", "flight": "flights"}[sub.kind]
    env[container] = entities
    if domain == "instore":
        env["reservations"], env["books"] = {}, {}
    return env


def _rubrics(user: User, sub: Sub, record_type: str, satisfying: dict[int, list[str]],
             ids: list[str]) -> tuple[list[str], list[dict[str, Any]]]:
    rubrics: list[str] = []
    checks: list[dict[str, Any]] = []

    def add(text: str, check: dict[str, Any]) -> None:
        rubrics.append(text)
        checks.append({"rubric": text, "check": check})

    def record(**where: dict[str, Any]) -> dict[str, Any]:
        return {"kind": "record", "record_type": record_type, "where": where}

    if sub.intention:
        add("The agent asks the user for the missing details (how many people, or when) before deciding",
            {"kind": "asked", "pattern": ASK_COUNT_OR_TIME})
    for i, dim in enumerate(sub.dims):
        if dim.level == "merchant":
            add(dim.rubric, record(entity_id={"in": sorted(satisfying[i])}))
        else:
            add(dim.rubric, record(product_ids={"subset_of": sorted(satisfying[i])}))
    if sub.address:
        address = user.profile["home_address" if sub.address == "home" else "work_address"]
        key = address.split(", ")[-3] if address.count(", ") >= 3 else address
        label = "home" if sub.address == "home" else "office"
        add(f"The order is delivered to the user's {label} address ({address})", record(address={"contains": key}))
    if sub.quantity:
        add(f"The order is for {sub.quantity} in total", record(total_quantity={"eq": sub.quantity}))
    if sub.travel_date:
        what = "night" if sub.kind == "hotel" else "travel date"
        add(f"The booking is for the {what} of {sub.travel_date}", record(dates={"includes_all": [sub.travel_date]}))
    if sub.party:
        add(f"The reservation is for {sub.party} people", record(customer_count={"eq": sub.party}))
    if sub.visit_time:
        add(f"The reservation is for {sub.visit_time}", record(time={"contains": sub.visit_time}))
    if record_type != "reservation":
        add("The order is paid", record(status={"eq": "paid"}))
    return rubrics, checks


def _shift(day: str, days: int) -> str:
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()


def build_user(user: User) -> dict[str, Any]:
    """One official ``PersonalizationTask`` dict."""
    subtasks = []
    previous = user.start
    for n in range(1, len(user.subtasks) + 1):
        subtasks.append(build_subtask(user, n, previous))
        previous = user.subtasks[n - 1].day
    uid = user.profile["user_id"]
    return {"id": uid, "user_id": uid, "user_profile": dict(user.profile), "subtasks": subtasks}


def build_demo_suite() -> list[dict[str, Any]]:
    """The demo suite: a list of users in the official ``tasks.json`` format."""
    return [build_user(user) for user in USERS]


def render(suite: list[dict[str, Any]]) -> str:
    """The suite as the committed file's text (stable order, indent 1, UTF-8 as is)."""
    return json.dumps(suite, indent=1, ensure_ascii=False) + "\n"


def main(path: str | Path | None = None) -> Path:
    """Write the demo suite (default ``suites/demo/tasks.json`` in the source checkout)."""
    target = Path(path) if path else DEFAULT_PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render(build_demo_suite()), encoding="utf-8")
    return target


if __name__ == "__main__":
    print(main())

"""``--vita-deviation search=official``: the search tools rank and filter as the official ones.

The unit tests pin each official rule on hand-made candidates; the conformance test runs the official tools
themselves (VITA_OFFICIAL_PYTHON, a copy of ../shared/official) and ours on the same databases and calls, and
compares the ids in the order each returns them.
"""

from __future__ import annotations

import gzip
import json
import re
from functools import cache
from typing import Any

import pytest
from _official_tools import run_official_tools
from _paths import REPO_ROOT

from pytest_vitabench.domains import build_environment
from pytest_vitabench.domains.fuzzy import fuzzy_rank, official_match, official_rank

PAPER = REPO_ROOT / "suites" / "paper" / "tasks.vita.json.gz"


def _rows(*texts: str) -> list[tuple[str, str, str]]:
    return [(f"id{i}", text, f"item{i}") for i, text in enumerate(texts)]


def test_keywords_are_joined_with_nothing():
    rows = _rows("spicy noodles", "spicynoodles")
    assert official_rank(["spicy", "noodles"], rows)[0] == "item1"
    assert fuzzy_rank(["spicy", "noodles"], rows)[0] == "item0"


def test_ties_keep_the_database_order_not_the_id_order():
    rows = [("b", "cake", "first"), ("a", "cake shop", "second")]
    assert official_rank(["cake"], rows) == ["first", "second"]
    assert fuzzy_rank(["cake"], rows) == ["second", "first"]


def test_punctuation_and_case_are_stripped_by_the_default_processor():
    rows = _rows("Tea-House!", "tea house")
    # both texts process to "tea house": a tie, kept in input order; ours tells them apart by the dash
    assert official_rank("TEA HOUSE", rows) == ["item0", "item1"]
    assert fuzzy_rank("TEA HOUSE", rows) == ["item1", "item0"]


def test_candidates_sharing_a_text_all_show_the_last_of_them():
    rows = _rows("noodle bar", "cake", "noodle bar")
    assert official_rank(["noodle"], rows) == ["item2", "item2", "item1"]


def test_an_empty_query_keeps_every_candidate_in_database_order():
    rows = _rows("b", "a", "c")
    assert official_rank([], rows) == ["item0", "item1", "item2"]


def test_the_official_city_match_is_raw_partial_ratio_at_40():
    assert official_match("Shenzhen", "No. 1 Shennan Road, Shenzhen")
    assert official_match("Shanghai", "Shenzhen")  # the official bar lets a different city through
    assert not official_match("shenzhen", "SHENZHEN")  # no case folding


# --------------------------------------------------------------------------------------------------
# Against the official tools

#: Tool -> (the container a subtask needs, the id key in both outputs, the official class name).
SEARCHES: dict[str, tuple[str, str, str]] = {
    "delivery_store_search_recommand": ("stores", "store_id", "Store"),
    "delivery_product_search_recommand": ("stores", "product_id", "StoreProduct"),
    "instore_shop_search_recommend": ("shops", "shop_id", "Shop"),
    "instore_product_search_recommend": ("shops", "product_id", "ShopProduct"),
    "hotel_search_recommand": ("hotels", "hotel_id", "Hotel"),
    "attractions_search_recommend": ("attractions", "attraction_id", "Attraction"),
    "flight_search_recommend": ("flights", "flight_id", "Flight"),
}


@cache
def _paper() -> list[dict[str, Any]]:
    with gzip.open(PAPER, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def _subtask(container: str) -> dict[str, Any]:
    return next(s for u in _paper() for s in u["subtasks"]
                if s["domain"] in ("delivery", "instore", "ota") and s["environment"].get(container))


def _calls(tool: str, env: dict[str, Any]) -> list[dict[str, Any]]:
    """Keyword sets drawn from the database itself, plus punctuation, several words and none."""
    if tool == "flight_search_recommend":
        flight = next(iter(env["flights"].values()))
        return [{"departure": flight["departure_city"], "destination": flight["arrival_city"]},
                {"departure": flight["departure_city"][:3], "destination": flight["arrival_city"]}]
    container = SEARCHES[tool][0]
    entities = list(env[container].values())
    if tool.endswith("product_search_recommand") or tool.endswith("product_search_recommend"):
        entities = [p for e in entities for p in e.get("products", [])]
    first, last = entities[0], entities[-1]
    name = str(first.get("name") or first.get("shop_name") or first.get("hotel_name")
               or first.get("attraction_name") or "")
    tags = [str(t) for t in (last.get("tags") or [])] or ["popular"]
    word_sets = [[name], tags[:2], [name.upper() + "!!"], [tags[0], "spicy", "cheap"], []]
    if container in ("hotels", "attractions"):
        city = str(first["location"]["address"]).split(",")[-1].strip()
        return [{"city_name": city, "key_words": words} for words in word_sets]
    return [{"keywords": words} for words in word_sets]


def _official_ids(content: str, key: str, cls: str) -> list[str]:
    pattern = re.compile(rf"^{cls}\(.*?\b{key}=([^,)]+)")
    return [m.group(1) for line in content.splitlines() if (m := pattern.match(line))]


def _our_ids(content: str, key: str) -> list[str]:
    value = json.loads(content)
    return [row[key] for row in value] if isinstance(value, list) else []


@pytest.mark.slow
@pytest.mark.parametrize("tool", sorted(SEARCHES))
def test_search_order_equals_the_official_tools(tool, tmp_path):
    if not PAPER.exists():
        pytest.skip(f"{PAPER} is missing")
    container, key, cls = SEARCHES[tool]
    sub = _subtask(container)
    env = sub["environment"]
    calls = _calls(tool, env)
    official = run_official_tools(tmp_path, sub["domain"], env, [(tool, args) for args in calls])
    ours = build_environment(sub["domain"], env, user_id=env["user_id"], time=env["time"], seed=0,
                             official_search=True)
    compared = 0
    for args, (content, _error) in zip(calls, official, strict=True):
        expected = _official_ids(content, key, cls)
        assert _our_ids(ours.call(tool, args).content, key) == expected, (tool, args)
        compared += len(expected)
    assert compared > 0, f"{tool}: no call returned anything to compare"

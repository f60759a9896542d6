"""What a user profile and a preference tag say, in English or in Chinese.

Our generator writes English keys and labels (``gender: female``, ``city_tier: first-tier``); the VitaBench 2.0
data is Chinese (``性别: 女``, ``长期疾病/过敏史: 无``). The validator and the statistics read both, and a value that
says there is nothing (``none``, ``N/A``, ``无``, ``暂无``, ``没有过敏史`` ...) is neither an allergen nor a preference.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

#: Words that, alone, say "nothing": what remains of a value once its nouns and fillers are taken out.
_NONE_WORDS = frozenset({
    "none", "no", "na", "nil", "null", "nothing", "nope", "unknown", "nka", "nkda", "-", "--", "—", "/",
    "无", "没有", "没", "暂无", "暂时没有", "目前没有", "目前无", "尚无", "不适用", "否", "未知", "不详", "未发现",
    "未见", "空",
})
#: Nouns and fillers a "nothing" value may carry: "no known allergies", "无已知过敏史", "没有任何疾病".
_FILLERS = re.compile(
    r"\b(?:not applicable|allerg(?:ies|y|ic|ens?)|known|any|particular|special|diseases?|illness(?:es)?|"
    r"conditions?|medical|history|dietary|restrictions?)\b|"
    r"过敏史|过敏源|过敏原|过敏|长期疾病|疾病|病史|饮食禁忌|禁忌|忌口|已知|明显|任何|特殊|特别|情况|记录|要求|偏好|喜好|食物",
    re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,，、;；:：.。!！()（）\[\]【】\"'“”]+")


def is_none(value: Any) -> bool:
    """Whether a profile value or a preference tag says there is nothing (in either language); an empty value
    and a list of such values too."""
    if value is None:
        return True
    if isinstance(value, (list, tuple)):
        return all(is_none(item) for item in value)
    text = str(value).strip().lower().replace("n/a", "na")
    if not text:
        return True
    text = _FILLERS.sub(" ", text.replace("not applicable", "na"))
    pieces = [piece for piece in _SEPARATORS.split(text) if piece]
    return bool(pieces) and all(piece in _NONE_WORDS for piece in pieces)


# ------------------------------------------------------------------------------------------ allergies

_ALLERGY_KEY = re.compile(r"allerg|过敏", re.IGNORECASE)
_ITEM_BREAK = re.compile(r"[,，、;；/]|\band\b|和|及")
_CJK = re.compile(r"[\u3400-\u9fff]")
#: How a Chinese allergy item names its allergen: "对花生过敏", "花生过敏", "海鲜过敏史".
_ZH_ALLERGY_WORDS = re.compile(r"^对|过敏性|过敏史|过敏原|过敏源|过敏|不耐受")


def allergens(profile: Mapping[str, Any]) -> list[str]:
    """The allergens a profile states, lower-cased (``"peanut allergy"``, ``"花生"``): the items of its allergy
    fields (``allergies``, ``长期疾病/过敏史`` ...) that are not "nothing". An English item is kept whole, a
    Chinese one without its "过敏" wording."""
    found: list[str] = []
    for key, value in profile.items():
        if not _ALLERGY_KEY.search(str(key)) or is_none(value):  # whole first: "N/A" is no list of "N" and "A"
            continue
        items = value if isinstance(value, (list, tuple)) else _ITEM_BREAK.split(str(value))
        for item in items:
            text = str(item).strip().lower()
            if is_none(text):
                continue
            if _CJK.search(text):
                text = _ZH_ALLERGY_WORDS.sub("", text).strip()
            if text and text not in found:
                found.append(text)
    return found


#: Words just before an allergen in a tag that keep it away ("不吃花生", "无花生", "忌海鲜").
ZH_AVOID_BEFORE = "不没无忌免避别戒去拒禁勿少非"


def avoids(tag: str, allergen: str) -> bool:
    """Whether a Chinese tag that names ``allergen`` keeps it away rather than asking for it."""
    at = tag.find(allergen)
    while at != -1:
        before, after = tag[max(0, at - 3):at], tag[at + len(allergen):]
        if not (any(c in ZH_AVOID_BEFORE for c in before) or after.startswith(("过敏", "不要", "除外"))):
            return False
        at = tag.find(allergen, at + 1)
    return True


# ------------------------------------------------------------------------------------------ labels

#: Per field: the keys that hold it, and per label the words of a value that mean it (first match wins, so a
#: more specific word comes first: 新一线 before 一线).
_FIELDS: dict[str, tuple[re.Pattern[str], tuple[tuple[str, tuple[str, ...]], ...]]] = {
    "gender": (re.compile(r"^(gender|sex)$|性别", re.I), (
        ("female", ("female", "woman", "f", "女")), ("male", ("male", "man", "m", "男")))),
    "city_tier": (re.compile(r"tier|城市.{0,2}(等级|级别|线级|分级|类型|层级)|城市线|线级", re.I), (
        ("emerging first-tier", ("emerging", "new first", "新一线")),
        ("first-tier", ("first-tier", "first tier", "tier 1", "tier-1", "一线")),
        ("lower-tier", ("lower", "second", "third", "tier 2", "tier 3", "二线", "三线", "四线", "五线", "县",
                        "乡", "镇", "下沉")))),
    "occupation_type": (re.compile(r"collar|occupation.?type|职业.{0,2}(类型|类别|分类)|领", re.I), (
        ("white-collar", ("white", "白领")), ("blue-collar", ("blue", "蓝领")),
        ("gray-collar", ("gray", "grey", "灰领")))),
    "consumption_level": (re.compile(r"consum|spending|消费", re.I), (
        ("high", ("high", "高")), ("medium", ("medium", "middle", "mid", "moderate", "中")), ("low", ("low", "低")))),
}


def profile_label(profile: Mapping[str, Any], field: str) -> str | None:
    """The English label of ``field`` (``gender``, ``city_tier``, ``occupation_type``, ``consumption_level``) a
    profile states in either language, or ``None`` when it states none."""
    keys, labels = _FIELDS[field]
    for key, value in profile.items():
        if not keys.search(str(key)) or not isinstance(value, str) or is_none(value):
            continue
        text = value.strip().lower()
        for label, words in labels:
            # A one-letter English word ("f") must be the whole value; others may sit inside it ("女性", "一线城市").
            if any(text == word or (len(word) > 1 or _CJK.match(word)) and word in text for word in words):
                return label
    return None


_BIRTH_KEY = re.compile(r"birth|出生|生日", re.IGNORECASE)
_DATE = re.compile(r"(\d{4})\D{1,3}(\d{1,2})\D{1,3}(\d{1,2})")


def birth_date(profile: Mapping[str, Any]) -> date | None:
    """The birth date a profile states (``1994-03-12``, ``1994年3月12日``), or ``None``."""
    for key, value in profile.items():
        if _BIRTH_KEY.search(str(key)) and (match := _DATE.search(str(value))):
            try:
                return date(*(int(part) for part in match.groups()))
            except ValueError:
                return None
    return None


_MOVED_KEY = re.compile(r"moved|迁出|迁居|搬迁|原居住地", re.IGNORECASE)


def moved(profile: Mapping[str, Any]) -> bool | None:
    """Whether the profile says the user moved cities (``None`` when it has no such field)."""
    values = [value for key, value in profile.items() if _MOVED_KEY.search(str(key))]
    return None if not values else any(not is_none(value) for value in values)

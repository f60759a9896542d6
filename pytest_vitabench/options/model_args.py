"""``--vita-model-args``: request settings for the agent model, as JSON or ``key=value`` pairs.

``--vita-model-args user``, ``--vita-model-args judge`` and ``--vita-model-args memory`` give the other roles
theirs in the same form.

    --vita-model-args '{"reasoning_effort": "high", "extra_body": {"enable_thinking": true}}'
    --vita-model-args "temperature=0.6,top_p=0.95,max_completion_tokens=8192"
    --vita-model-args "extra_body.enable_thinking=false"

A ``key=value`` value is read as JSON when it parses (numbers, booleans, null, quoted strings, objects),
else kept as a string; a dotted key nests (``extra_body.enable_thinking``). The settings go to the endpoint
with every agent request, into the report's config and into the LLM cache key (the request is the key),
so a thinking and a non-thinking run never share cached answers.
"""

from __future__ import annotations

import json
from typing import Any

#: Set by the harness itself; a model argument may not override them.
RESERVED = ("model", "messages", "tools", "seed", "stream", "n")


def parse_model_args(value: Any, option: str = "--vita-model-args") -> dict[str, Any]:
    """The settings as a dict (empty for ``None`` or a blank string).

    Args:
        value: JSON, ``key=value`` pairs or a dict.
        option: The option it was given to, for the errors (the agent's or another role's).

    Raises:
        ValueError: Malformed JSON, a pair without ``=``, an empty key, or a reserved key, naming the option.
    """
    if value is None:
        return {}
    if isinstance(value, dict):
        args = dict(value)
    else:
        text = str(value).strip()
        if not text:
            return {}
        if text.startswith("{"):  # JSON text that starts so can only be an object
            try:
                args = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{option} is not valid JSON: {exc}") from None
        else:
            args = {}
            for pair in _split_pairs(text):
                key, sep, raw = pair.partition("=")
                key = key.strip()
                if not sep or not key:
                    raise ValueError(f"{option}: expected key=value, got {pair.strip()!r}")
                _set(args, key.split("."), _value(raw.strip()), option)
    bad = [key for key in args if key in RESERVED]
    if bad:
        raise ValueError(f"{option} may not set {', '.join(bad)}: the harness sets it")
    return args


def _split_pairs(text: str) -> list[str]:
    """Split on commas outside brackets and quotes, so ``stop=["a","b"]`` stays one pair."""
    pairs, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            if char == quote and text[i - 1] != "\\":
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            pairs.append(text[start:i])
            start = i + 1
    pairs.append(text[start:])
    return [p for p in pairs if p.strip()]


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def _set(target: dict[str, Any], path: list[str], value: Any, option: str) -> None:
    for part in path[:-1]:
        node = target.setdefault(part, {})
        if not isinstance(node, dict):
            raise ValueError(f"{option}: {part!r} is both a value and a group")
        target = node
    target[path[-1]] = value

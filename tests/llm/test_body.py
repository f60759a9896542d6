"""The request body's bytes: the openai SDK's own encoding, long texts encoded once."""

from __future__ import annotations

import random

import pytest

from pytest_vitabench.llm.body import LONG_TEXT, BodyEncoder

openai_json = pytest.importorskip("openai._utils._json")


def _text(rng: random.Random, size: int) -> str:
    pieces = ["word ", "中文", "\n", "\t", '"quoted"', "\\", "é", "\x00", "\u2028", "😀", "{}[],:"]
    out = []
    while sum(map(len, out)) < size:
        out.append(rng.choice(pieces))
    return "".join(out)


def test_bytes_are_the_sdks_encoding_byte_for_byte():
    rng = random.Random(3)
    encode = BodyEncoder(kept=4)
    system = _text(rng, LONG_TEXT * 3)
    for turn in range(12):
        if turn % 5 == 4:  # a new episode's prompt, equal text in a new string: encoded again, same bytes
            system = "".join(list(system))
        body = {"model": "m", "messages": [{"role": "system", "content": system},
                                           *({"role": "user", "content": _text(rng, rng.choice([10, LONG_TEXT]))}
                                             for _ in range(turn % 3)),
                                           {"role": "assistant", "content": None,
                                            "tool_calls": [{"id": "c", "type": "function",
                                                            "function": {"name": "f", "arguments": "{}"}}]}],
                "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}], "temperature": 0.0}
        assert encode(body) == openai_json.openapi_dumps(body)


def test_a_text_holding_the_placeholder_is_still_encoded_right():
    encode = BodyEncoder()
    long = "x" * LONG_TEXT
    body = {"messages": [{"role": "system", "content": long},
                         {"role": "user", "content": "\x00vitabench long text 0\x00"}]}
    assert encode(body) == openai_json.openapi_dumps(body)


def test_a_long_text_is_encoded_once_while_it_is_sent_again(monkeypatch):
    from pytest_vitabench.llm import body as module

    encoded: list[int] = []
    real = module.dumps
    monkeypatch.setattr(module, "dumps", lambda value: encoded.append(len(value) if isinstance(value, str) else 0)
                        or real(value))
    encode = BodyEncoder()
    system = "y" * (LONG_TEXT * 4)
    for turn in range(5):
        encode({"messages": [{"role": "system", "content": system}, {"role": "user", "content": f"turn {turn}"}]})
    assert encoded.count(len(system)) == 1


def test_an_sdk_without_content_gets_the_body_to_encode_itself():
    """openai 1.x's ``post`` has no ``content``: the plugin hands it the body as before."""
    from pytest_vitabench.llm import endpoints

    class Response:
        def json(self):
            return {"choices": []}

    class OldSDK:
        def post(self, path, *, cast_to, body=None, options=None, files=None, stream=False, stream_cls=None):
            self.sent = body
            return Response()

    class NewSDK:
        def post(self, path, *, cast_to, body=None, content=None, options=None, files=None, stream=False):
            self.sent = (body, content)
            return Response()

    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "extra_headers": {"X-A": "1"}}
    old, new = OldSDK(), NewSDK()
    assert not endpoints.takes_content(old) and endpoints.takes_content(new)
    endpoints.post_chat(old, request)
    assert old.sent == {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    endpoints.post_chat(new, request, BodyEncoder())
    assert new.sent == (None, openai_json.openapi_dumps(old.sent))

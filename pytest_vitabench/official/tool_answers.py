"""The domain tools answering as the official ones (``--vita-deviation tool-results=official``).

One registry names, per tool set, the class that re-implements its official tools; the environment receives an
:class:`OfficialAnswers` (a :class:`~pytest_vitabench.domains.base.ToolAnswers`) and each tool set finds its
behaviour through it. The messages of the official tools are read from the user's copy of the harness
(:mod:`.messages`); every one the re-implementations use is found before any item runs.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from ..domains.base import ToolRules
from ..domains.delivery.tools import DeliveryTools
from ..domains.instore.tools import InstoreTools
from ..domains.ota.tools import OtaTools
from ..domains.shared_tools import SharedTools
from .delivery import OfficialDelivery
from .instore import OfficialInstore
from .messages import DECLARED, MessageKey, ToolMessages
from .ota import OfficialOta
from .shared_tools import OfficialShared
from .source import OfficialSource

#: Per tool set, the class of its official tools' behaviour (importing each declares its messages).
OFFICIAL_TOOLS: dict[type, type] = {SharedTools: OfficialShared, DeliveryTools: OfficialDelivery,
                                    InstoreTools: OfficialInstore, OtaTools: OfficialOta}

#: Why the official tool results cannot run without the official source.
MISSING_SOURCE = ("--vita-deviation tool-results=official reads the official tools' messages from the official "
                  "VitaBench 2.0 "
                  "harness: name a copy with --vita-official-source DIR (or auto, the installed 'vita' package)")


@dataclass(frozen=True)
class OfficialAnswers:
    """The official tools' messages and, per tool set, the class of their behaviour."""

    messages: ToolMessages

    def say(self, key: Hashable, *values: Any) -> str:
        assert isinstance(key, MessageKey)
        return self.messages(key, *values)

    def behaviour_for(self, tool_set: type) -> type | None:
        for klass in tool_set.__mro__:
            if klass in OFFICIAL_TOOLS:
                return OFFICIAL_TOOLS[klass]
        return None


def official_answers(source: OfficialSource | None) -> OfficialAnswers:
    """The official answers, reading their messages from ``source``.

    Raises:
        ValueError: No official source.
    """
    if source is None:
        raise ValueError(MISSING_SOURCE)
    return OfficialAnswers(ToolMessages(source))


def answers_for(rules: ToolRules, source: OfficialSource | None) -> OfficialAnswers | None:
    """The answers an environment gets under ``rules``: the official ones, or ``None`` (ours)."""
    return official_answers(source) if rules.official_answers else None


def official_message_keys() -> list[MessageKey]:
    """Every official message the official tool results read (each official tools module declares its own)."""
    return list(dict.fromkeys(DECLARED))


def check_official_messages(source: OfficialSource) -> None:
    """Find every official message the official tool results use in ``source``, before any item runs.

    Raises:
        OfficialSourceError: A message is missing (naming the official file and function).
    """
    ToolMessages(source).check(official_message_keys())

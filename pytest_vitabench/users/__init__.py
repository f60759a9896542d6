"""User simulators: the protocol (:mod:`.base`), the offline ``scripted`` user (:mod:`.scripted`) and the
LLM user (:mod:`.llm_user`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..options.parts import UserSettings
from .base import UserSetup, UserSimulator

if TYPE_CHECKING:
    from ..llm.client import LLMClient

__all__ = ["UserSetup", "UserSimulator", "calls_llm", "make_user_simulator", "user_for"]

#: The offline user simulator's ``--vita-user-model`` name.
SCRIPTED = "scripted"


def calls_llm(settings: UserSettings) -> bool:
    """Whether the user simulator the settings select is a model at the endpoint."""
    return settings.user_model != SCRIPTED


def user_for(settings: UserSettings, *, client: LLMClient | None = None, language: str = "en",
             official_source: Any = None, params: dict[str, Any] | None = None) -> UserSimulator:
    """The run's user simulator from its settings (``--vita-user-model``, ``--vita-user-args``); the arguments
    as :func:`make_user_simulator`'s."""
    return make_user_simulator(settings.user_model, client=client, language=language,
                               wait_for_action=settings.user_wait_for_action, params=params,
                               official_source=official_source)


def make_user_simulator(name: str, *, client: LLMClient | None = None, language: str = "en",
                        wait_for_action: bool = False, params: dict[str, Any] | None = None,
                        official_source: Any = None) -> UserSimulator:
    """A user simulator by ``--vita-user-model`` name.

    Args:
        name: ``scripted`` (offline, deterministic) or a model name at the client's endpoint.
        client: The shared LLM client (required for an LLM user: :class:`ValueError` without one).
        language: Prompt language fallback (each item's ``UserSetup.language`` is used first).
        official_source: The user's copy of the VitaBench 2.0 harness: the LLM user sends its wording.
    """
    if name == SCRIPTED:
        from .scripted import ScriptedUser

        # The scripted user already waits for a completed action before it stops ("Booked; shall I pay?").
        return ScriptedUser()
    if client is None:
        raise ValueError(f"--vita-user-model {name!r} is an LLM user and needs an LLM client "
                         "(an endpoint: --vita-base-url / $OPENAI_BASE_URL and a key in --vita-api-key-env)")
    from .llm_user import LLMUser

    return LLMUser(name, client=client, language=language, wait_for_action=wait_for_action, params=params,
                   official_source=official_source)

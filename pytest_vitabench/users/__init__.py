"""User simulators: the protocol (:mod:`.base`) and the offline ``scripted`` user (:mod:`.scripted`)."""

from __future__ import annotations

from .base import UserSetup, UserSimulator

__all__ = ["UserSetup", "UserSimulator", "make_user_simulator"]


def make_user_simulator(name: str) -> UserSimulator:
    """A user simulator by ``--vita-user-model`` name.

    Raises:
        ValueError: Any name but ``scripted`` (LLM users are not available yet).
    """
    if name == "scripted":
        from .scripted import ScriptedUser

        return ScriptedUser()
    raise ValueError(f"unknown user simulator {name!r}: only 'scripted' is available; "
                     "LLM user simulators arrive with the LLM roles issue")

"""The user's official harness for one run, opened once from the profile's settings: its source (the wording
the requests carry) and its ``models.yaml`` (each role's request settings), each checked before any item runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..options.parts import ProfileSettings
from .models import OfficialModels
from .models import locate as locate_models
from .source import OfficialSource
from .source import locate as locate_source
from .tool_answers import MISSING_SOURCE, check_official_messages
from .wording import check_wording


class RoleModel(NamedTuple):
    """One LLM role of a run: the option that names its model, the model it calls (``None``: a built-in, or a
    role no component of the run sends), and its own ``--vita-model-args``."""

    option: str
    model: str | None
    args: Mapping[str, Any]


@dataclass(frozen=True)
class OfficialHarness:
    """What the run reads from the official harness: ``None`` where the user has no copy (or said ``none``).

    Attributes:
        request_settings: Each LLM role's request settings (``agent``, ``user``, ``judge``, ``memory``, ...):
            with the official ``models.yaml``, its model's entry as the official harness sends it (an entry
            without ``temperature`` sends none: ``None`` drops the role's default 0), then the role's own
            ``--vita-model-args`` over it, key by key.
    """

    source: OfficialSource | None = None
    models: OfficialModels | None = None
    request_settings: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def open(cls, settings: ProfileSettings, *, roles: Mapping[str, RoleModel], official_answers: bool,
             answers_asked: bool) -> OfficialHarness:
        """Locate and check the source and the models.yaml the settings name, and settle each role's requests.

        Args:
            roles: The run's LLM roles, by name.
            official_answers: The run's tools answer with the official tools' text, which the source's
                messages must match (a changed copy fails now, naming file and function).
            answers_asked: ``--vita-deviation tool-results=official`` was given by name: without a source it
                cannot be honoured. Left to the profile, the run falls back to our own answers.

        Raises:
            ValueError: A source or file that is missing or does not read, naming where it looked; a role's
                model without an entry in the models.yaml.
        """
        source = locate_source(settings.official_source)
        if source is not None:
            check_wording(source)
        if official_answers:
            if source is not None:
                check_official_messages(source)
            elif answers_asked:
                raise ValueError(MISSING_SOURCE)
        models = locate_models(settings.official_models, source.package_dir if source else None)
        return cls(source, models, {role: {**_entry(models, role, role_model), **role_model.args}
                                    for role, role_model in roles.items()})


def _entry(models: OfficialModels | None, role: str, role_model: RoleModel) -> dict[str, Any]:
    if models is None or not role_model.model:
        return {}
    return {"temperature": None, **models.settings(role_model.model, option=role_model.option,
                                                   memory=role == "memory")}

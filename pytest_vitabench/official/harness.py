"""The user's official harness for one run, opened once from the profile's settings: its source (the wording
the requests carry) and its ``models.yaml`` (each role's request settings), each checked before any item runs."""

from __future__ import annotations

from dataclasses import dataclass

from ..options.parts import ProfileSettings
from .models import OfficialModels
from .models import locate as locate_models
from .source import OfficialSource
from .source import locate as locate_source
from .tool_answers import MISSING_SOURCE, check_official_messages
from .wording import check_wording


@dataclass(frozen=True)
class OfficialHarness:
    """What the run reads from the official harness: ``None`` where the user has no copy (or said ``none``)."""

    source: OfficialSource | None = None
    models: OfficialModels | None = None

    @classmethod
    def open(cls, settings: ProfileSettings, *, official_answers: bool, answers_asked: bool) -> OfficialHarness:
        """Locate and check the source and the models.yaml the settings name.

        Args:
            official_answers: The run's tools answer with the official tools' text, which the source's
                messages must match (a changed copy fails now, naming file and function).
            answers_asked: ``--vita-deviation tool-results=official`` was given by name: without a source it
                cannot be honoured. Left to the profile, the run falls back to our own answers.

        Raises:
            ValueError: A source or file that is missing or does not read, naming where it looked.
        """
        source = locate_source(settings.official_source)
        if source is not None:
            check_wording(source)
        if official_answers:
            if source is not None:
                check_official_messages(source)
            elif answers_asked:
                raise ValueError(MISSING_SOURCE)
        return cls(source, locate_models(settings.official_models, source.package_dir if source else None))

"""Whether two runs' settings differ: the one rule behind ``--vita-resume``, ``vitabench merge`` and comparisons.

A config block (a run manifest's ``config``, a report's ``config``) holds the settings of
:class:`~pytest_vitabench.options.settings.RunSettings` and a few keys the plugin adds. Each setting's declared scope
decides: a ``score`` setting can change an item's score and is compared; an ``endpoint`` setting (where the
roles are reached) or a ``run`` setting (limits, cache, gates, outputs) never is. Of the added keys,
``plugin_version`` is compared unless the caller leaves it out, and the blocks derived from the suites and the
settings (:data:`DERIVED`) never are: callers check the suites by their hashes. A key this version does not
declare (a setting of another version of the plugin) is compared: it may change a score.

Standard library and :mod:`pytest_vitabench.options.settings` only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..options.settings import specs

#: Keys of a report's config block derived from the suites a run read (each piece of a sharded run has its
#: own) and from its settings (the profile block): never compared as settings.
DERIVED = frozenset({"suites", "suite_languages", "suite_sources", "profile_summary"})
#: The plugin's version, which every config block carries.
VERSION = "plugin_version"


#: Each declared setting's scope (a constant table: the declarations are fixed at import).
_SCOPES: dict[str, str] = {item.name: item.meta.scope for item in specs()}


def compared(key: str, *, version: bool = True) -> bool:
    """Whether the config key ``key`` is part of what two runs must share (``version``: the plugin's too)."""
    if key == VERSION:
        return version
    if key in DERIVED:
        return False
    return _SCOPES.get(key, "score") == "score"


def measured(config: Mapping[str, Any], *, version: bool = True) -> dict[str, Any]:
    """The part of a config block that :func:`settings_differences` compares."""
    return {key: value for key, value in config.items() if compared(key, version=version)}


def settings_differences(a: Mapping[str, Any], b: Mapping[str, Any], *, version: bool = True) -> list[str]:
    """The names of the settings whose values differ between two config blocks, sorted (a key missing from
    one block differs from any value but ``None``).

    Args:
        version: Whether a different ``plugin_version`` counts (a resumed run and the pieces of a merge share
            it; a comparison of two runs does not need to).
    """
    left, right = measured(a, version=version), measured(b, version=version)
    return [key for key in sorted(set(left) | set(right)) if left.get(key) != right.get(key)]

"""The official harness's ``models.yaml``: the request settings it sends each role (its model's entry, the
``default`` block deep-merged in), found where the official harness finds it.

Two keys are not taken: ``seed`` (the agent's and the user's seed is the trial's in both harnesses) and
``extra_headers`` (headers often carry credentials, which must not reach our report and header). ``auto``
never reads the ``.example`` file, whose endpoint is nobody's.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

#: The entry keys the official chat request carries, in the official order.
REQUEST_KEYS = ("temperature", "max_tokens", "max_completion_tokens", "reasoning_effort", "top_p", "stop",
                "extra_body")

#: The official rewrite memory sets its own output budget and drops these of the model's entry.
MEMORY_DROPS = ("max_tokens", "max_completion_tokens")

#: The environment variable the official harness reads its file's path from first.
PATH_VARIABLE = "VITA_MODEL_CONFIG_PATH"

# The official interpolation: a whole value "${NAME}" is the environment variable NAME.
_PLACEHOLDER = re.compile(r"^\$\{([A-Z][A-Z0-9_]*)\}$")


@dataclass(frozen=True)
class OfficialModels:
    """A read ``models.yaml``: per model name, the request settings of its merged entry (``default`` included);
    ``found_as`` is ``given``, ``$VITA_MODEL_CONFIG_PATH`` or ``official source``."""

    path: Path
    entries: dict[str, dict[str, Any]]
    found_as: str = "given"

    def settings(self, model: str, *, option: str, memory: bool = False) -> dict[str, Any]:
        """The settings the official harness sends with ``model``'s requests (``memory``: the memory update's,
        without the output budget it sets itself).

        Raises:
            ValueError: ``model`` has no entry (the official harness cannot call it either), naming ``option``.
        """
        if model not in self.entries:
            known = ", ".join(sorted(self.entries)) or "none"
            raise ValueError(f"{option} {model!r} has no entry in {self.path} (its models: {known}); the official "
                             "harness sends each role its entry's settings: add one, or pass "
                             "--vita-official-models none")
        entry = self.entries[model]
        return {k: v for k, v in entry.items() if not (memory and k in MEMORY_DROPS)}

    def describe(self) -> dict[str, Any]:
        """The report's and the header's account of the file."""
        return {"path": str(self.path), "found_as": self.found_as}


def locate(value: str | None, source_dir: Path | None) -> OfficialModels | None:
    """The ``models.yaml`` of ``--vita-official-models`` (a path, ``auto`` or ``none``); ``auto`` reads
    ``$VITA_MODEL_CONFIG_PATH``, else ``models.yaml`` of ``source_dir`` (the official ``src/vita``).

    Raises:
        ValueError: A given file that is missing or does not read as a models.yaml, naming it.
    """
    if value in (None, "none"):
        return None
    if value != "auto":
        return load(Path(str(value)).expanduser(), found_as="given")
    env = os.environ.get(PATH_VARIABLE)
    if env:
        return load(Path(env).expanduser(), found_as=f"${PATH_VARIABLE}")
    if source_dir is not None and (source_dir / "models.yaml").is_file():
        return load(source_dir / "models.yaml", found_as="official source")
    return None


def load(path: Path, *, found_as: str = "given") -> OfficialModels:
    """Read ``path`` as the official harness does: ``default`` deep-merged into every entry of ``models``.

    Raises:
        ValueError: A missing or unreadable file, YAML that is not a models.yaml, or a placeholder of an unset
            variable in a request setting, naming the file and the problem.
    """
    where = f"--vita-official-models {path}"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"{where}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected a mapping with 'default' and 'models', got {type(data).__name__}")
    default = data.get("default") or {}
    models = data.get("models") or []
    if not isinstance(default, dict):
        raise ValueError(f"{where}: 'default' must be a mapping")
    if not isinstance(models, list):
        raise ValueError(f"{where}: 'models' must be a list of entries with a 'name'")
    entries = {"default": _request_settings(default, where=f"{where}: default")}
    for i, entry in enumerate(models):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
            raise ValueError(f"{where}: models[{i}] has no name")
        merged = _deep_merge(default, entry)
        entries[entry["name"]] = _request_settings(merged, where=f"{where}: {entry['name']}")
    return OfficialModels(path=path, entries=entries, found_as=found_as)


def _request_settings(entry: dict[str, Any], *, where: str) -> dict[str, Any]:
    # Null values are left out of the official request, as they are of ours.
    return {k: _interpolate(entry[k], where=f"{where}.{k}") for k in REQUEST_KEYS if entry.get(k) is not None}


def _deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(merged.get(key), dict) and isinstance(value, dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _interpolate(value: Any, *, where: str) -> Any:
    if isinstance(value, str):
        match = _PLACEHOLDER.match(value)
        if not match:
            return value
        if match.group(1) not in os.environ:
            raise ValueError(f"{where} is ${{{match.group(1)}}}, an environment variable that is not set")
        return os.environ[match.group(1)]
    if isinstance(value, list):
        return [_interpolate(v, where=where) for v in value]
    if isinstance(value, dict):
        return {k: _interpolate(v, where=f"{where}.{k}") for k, v in value.items()}
    return value

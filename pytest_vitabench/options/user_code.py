"""The user's own code that an option names as ``module:attribute`` (``--vita-memory my_memory:SPEC``,
``--vita-judge-model my_judges:SPEC``): imported from ``sys.path``, else from the project's folders.

A module saved beside the suite must load as the recipes write it, without ``PYTHONPATH=.`` or a conftest.py:
pytest's console script puts neither the current folder nor the rootdir on ``sys.path``. The run names its
folders once (:func:`set_project_folders`: where pytest started, the rootdir, the folders of the paths it was
given); a module found there has its folder appended to ``sys.path``. Appended, not prepended, so that it
shadows no installed package, and its own sibling modules import the same way.

An object that declares a ``name`` (a ``MemorySpec``, a ``JudgeSpec``) is what runs, ids and reports call it;
:func:`declared` finds it again by that name in the same process.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_folders: list[Path] = []
#: ``(what, declared name) -> (reference, object)`` of what :func:`load` returned last under that name.
_declared: dict[tuple[str, str], tuple[str, Any]] = {}


def set_project_folders(folders: Iterable[Path | str]) -> None:
    """The folders a ``module:attribute`` is looked for in when ``sys.path`` lacks it, first match wins."""
    unique: list[Path] = []
    for folder in folders:
        path = Path(folder).resolve()
        if path.is_file():
            path = path.parent
        if path.is_dir() and path not in unique:
            unique.append(path)
    _folders[:] = unique
    _declared.clear()  # a new run: names declared by an earlier run in this process (pytester) are not its own


def project_folders() -> list[Path]:
    """The folders of :func:`set_project_folders`; the current folder where no run named them (a command)."""
    return list(_folders) or [Path.cwd()]


def is_reference(text: str) -> bool:
    """Whether ``text`` has the shape of ``package.module:attribute`` (``qwen2.5:7b``, a model, has not)."""
    module, sep, attribute = text.partition(":")
    return bool(sep) and all(part.isidentifier() for part in (*module.split("."), *attribute.split(".")))


def findable(reference: str) -> bool:
    """Whether the module of ``reference`` is on ``sys.path`` or in a project folder (a model's name that
    happens to look like ``name:tag`` is not)."""
    top = reference.partition(":")[0].split(".")[0]
    return top in sys.modules or importlib.machinery.PathFinder.find_spec(top) is not None \
        or _folder_of(top) is not None


def load(reference: str, *, what: str) -> Any:
    """The object ``module:attribute`` names.

    Raises:
        ValueError: ``cannot load <what> '<reference>': ...``, with the folders looked in when the module is
            nowhere.
    """
    module_name, _, attribute = reference.partition(":")
    if not is_reference(reference):
        raise ValueError(f"cannot load {what} {reference!r}: write it as module:attribute (e.g. my_memory:SPEC)")
    try:
        target: Any = _import(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
    except ModuleNotFoundError as exc:
        looked = ", ".join(str(folder) for folder in project_folders())
        raise ValueError(f"cannot load {what} {reference!r}: {exc} (looked on sys.path and in {looked})") from exc
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot load {what} {reference!r}: {exc}") from exc
    name = getattr(target, "name", None)
    if isinstance(name, str) and name:  # the latest wins: a long-lived process (pytester) runs many runs
        _declared[(what, name)] = (reference, target)
    return target


def declared_name(reference: str, *, what: str) -> str:
    """The name the object ``reference`` names declares (``recent`` for ``my_memory:SPEC``), else
    ``reference`` itself; :func:`declared` finds the object by it. ``ValueError`` as :func:`load`."""
    name = getattr(load(reference, what=what), "name", None)
    return name if isinstance(name, str) and name else reference


def reference_of(name: str, *, what: str) -> str | None:
    """The ``module:attribute`` whose object :func:`load` last returned under the declared ``name``, else ``None``."""
    known = _declared.get((what, name))
    return known[0] if known is not None else None


def declared(name: str, *, what: str) -> Any:
    """The object of ``what`` that :func:`load` loaded in this process and that declares ``name``, else ``None``."""
    known = _declared.get((what, name))
    return known[1] if known is not None else None


def _folder_of(top: str) -> Path | None:
    for folder in project_folders():
        if importlib.machinery.PathFinder.find_spec(top, [str(folder)]) is not None:
            return folder
    return None


def _import(module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        top = module_name.split(".")[0]
        folder = _folder_of(top) if exc.name == top else None  # a module that is there but misses an import: as is
        if folder is None:
            raise
        if str(folder) not in sys.path:
            sys.path.append(str(folder))
        importlib.invalidate_caches()
        return importlib.import_module(module_name)

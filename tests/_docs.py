"""The documentation the tests read: README.md and the MkDocs pages under docs/.

Tests that check what the documentation says (its commands run, its Python imports only the public API, its
tables name every option and deviation) read it through here, so a page added to ``docs/`` is checked
like the README without a test naming it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from _paths import REPO_ROOT

README = REPO_ROOT / "README.md"
DOCS_DIR = REPO_ROOT / "docs"
OPTIONS_HOOK = DOCS_DIR / "hooks" / "options_reference.py"


def doc_files() -> list[Path]:
    """README.md, then every page under docs/ (the hooks are code, not pages)."""
    return [README, *sorted(p for p in DOCS_DIR.rglob("*.md") if "hooks" not in p.relative_to(DOCS_DIR).parts)]


def doc_texts() -> dict[str, str]:
    """``{path relative to the repository: text}`` of every documentation file."""
    return {str(path.relative_to(REPO_ROOT)): path.read_text(encoding="utf-8") for path in doc_files()}


def page(name: str) -> str:
    """The text of ``docs/NAME``."""
    return (DOCS_DIR / name).read_text(encoding="utf-8")


def options_hook() -> ModuleType:
    """The MkDocs hook that writes the options reference (loaded from its file, as MkDocs does)."""
    module = sys.modules.get("vita_docs_options_reference")
    if module is None:
        spec = importlib.util.spec_from_file_location("vita_docs_options_reference", OPTIONS_HOOK)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["vita_docs_options_reference"] = module
    return module

"""The user's copy of the official VitaBench 2.0 harness, read for its wording (``--vita-official-source``).

The project ships only its own text: prompts (YAML) and tool descriptions (the literal dictionaries of each
domain's ``tools_schema.py``, parsed with :mod:`ast`, never executed) are read at run time from a checkout or
the installed ``vita`` package, found without importing it.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeGuard, TypeVar

import yaml

#: The values of ``--vita-official-source`` that are not a directory.
AUTO, NONE = "auto", "none"

#: Prompt files (``prompts/<name>.yaml``) whose wording reaches a model.
PROMPTS = (
    "personalization_agent_system_prompt",
    "personalization_agent_proactive_system_prompt",
    "personalization_agent_addendum",
    "personalization_user_system_prompt",
    "personalization_user_proactive_section",
    "sliding_window_eval_template",
    "full_trajectory_eval_template",
    "memory_update_prompt",
)
#: The official harness's domain folders (``domains/<name>/``) whose tools the agent gets.
DOMAINS = ("delivery", "instore", "ota")
#: Our language codes -> the official prompt files' keys.
LANGUAGE_KEYS = {"en": "english", "zh": "chinese"}
#: Our language codes -> the suffix of the official tool description dictionaries.
DESCRIPTION_SUFFIX = {"en": "EN", "zh": "ZH"}

#: What ``auto`` takes before looking for an installed package (the plugin's own tests set it to ``none``).
ENVIRONMENT = "VITA_OFFICIAL_SOURCE"

NOT_COMPARABLE = "not comparable: prompts are pytest-vitabench's own"


_T = TypeVar("_T")


class OfficialSourceError(ValueError):
    """The official source is missing or unreadable; the message names what was looked for."""


@dataclass(frozen=True)
class Template:
    """An f-string of the official code as a :meth:`str.format` template.

    Attributes:
        text: The template: the f-string's literal parts (braces doubled) and ``{name}`` per field.
        fields: The names its fields interpolate, in order.
    """

    text: str
    fields: tuple[str, ...]


@dataclass(frozen=True)
class OfficialSource:
    """A readable copy of the official harness's ``vita`` package directory.

    Every reader raises :class:`OfficialSourceError`, naming the file and what it looked for, when the copy
    cannot be read or lacks it.

    Attributes:
        package_dir: The directory holding ``prompts/`` and ``domains/`` (``<checkout>/src/vita``).
        found_as: How it was found: ``checkout``, ``package directory`` or ``installed package``.
    """

    package_dir: Path
    found_as: str
    _derived: dict[tuple[Any, ...], Any] = field(default_factory=dict, compare=False, repr=False)

    def derived(self, key: tuple[Any, ...], build: Callable[[], _T]) -> _T:
        """``build()``, once per source and ``key``: what is read from this copy lives as long as the source."""
        if key not in self._derived:
            self._derived[key] = build()
        return self._derived[key]

    def tree(self, path: Path | str) -> ast.Module:
        """The parsed module at ``path`` (absolute, or relative to the package directory); never run."""
        path = self.package_dir / path
        return self.derived(("tree", path), lambda: _parse(path, "code"))

    def function(self, path: Path | str, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
        """The definition of function (or method) ``name`` in ``path``: the first in walk order."""
        path = self.package_dir / path
        node = self.derived(("functions", path), lambda: _functions(self.tree(path))).get(name)
        if node is None:
            raise OfficialSourceError(f"{path}: no function {name}()")
        return node

    @cached_property
    def version(self) -> str:
        """``git <commit>`` of the harness's own checkout, else ``sha256 <hex>`` of its prompt and tool description
        files (what of it reaches a model), else ``unknown``; never the commit of a repository that only
        contains the copy."""
        commit = _git_commit(self.package_dir)
        if commit:
            return f"git {commit}"
        digest = hashlib.sha256()
        try:
            for path in [*(self.package_dir / "prompts" / f"{name}.yaml" for name in PROMPTS),
                         *(self.package_dir / "domains" / domain / "tools_schema.py" for domain in DOMAINS)]:
                digest.update(path.relative_to(self.package_dir).as_posix().encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
        except OSError:
            return "unknown"
        return f"sha256 {digest.hexdigest()}"

    def describe(self) -> dict[str, str]:
        """The report's ``official_source`` block."""
        return {"path": str(self.package_dir), "found_as": self.found_as, "version": self.version}

    def prompt(self, name: str, language: str) -> str:
        """The text of prompt ``name`` (one of :data:`PROMPTS`) in ``language`` (``en``/``zh``)."""
        path = self.package_dir / "prompts" / f"{name}.yaml"
        texts = self.derived(("prompt", name), lambda: read_prompt_file(path))
        key = LANGUAGE_KEYS[language]
        if key not in texts:
            raise OfficialSourceError(f"{path}: no {key!r} text")
        return texts[key]

    def tool_descriptions(self, domain: str, language: str) -> dict[str, Any]:
        """``{tool name: {description, preconditions, postconditions, args, returns, ...}}`` of a domain."""
        path = self.package_dir / "domains" / domain / "tools_schema.py"
        name = f"TOOL_DESCRIPTIONS_{DESCRIPTION_SUFFIX[language]}"
        return self.derived(("tools", domain, language), lambda: literal_assignment(path, name))

    def code_template(self, relative: str, function: str, fields: tuple[str, ...]) -> str:
        """The one f-string of ``function`` in ``relative`` (a path under the package) whose fields are exactly
        ``fields`` (in order), as a :meth:`str.format` template."""
        templates = self.derived(("templates", relative, function), lambda: [
            t for n in self._nodes(relative, function) if isinstance(n, ast.JoinedStr)
            if (t := _template(n)) is not None])
        matches = [t.text for t in templates if t.fields == fields]
        return self._only(relative, function, matches, f"has {{n}} f-strings with the fields {', '.join(fields)}")

    def code_branch_template(self, relative: str, function: str, fields: tuple[str, ...], language_key: str) -> str:
        """The f-string with ``fields`` in the branch of an ``if ... == "<key>": ... else: ...`` inside
        ``function`` that ``language_key`` takes (a sentence the code writes in two languages)."""
        found = (template.text for branch in self._nodes(relative, function)
                 if isinstance(branch, ast.If) and (key := _language_test(branch)) is not _NO_TEST
                 for statement in (branch.body if key == language_key else branch.orelse)
                 for child in ast.walk(statement) if isinstance(child, ast.JoinedStr)
                 if (template := _template(child)) is not None and template.fields == fields)
        return self._first(relative, function, found, f"f-string with the fields {', '.join(fields)} in a "
                                                      "language branch")

    def code_fallback(self, relative: str, function: str, keyword: str) -> str:
        """The string after ``or`` in the ``keyword=... or "text"`` argument inside ``function``."""
        found = (str(k.value.values[-1].value) for call in self._nodes(relative, function) if isinstance(call, ast.Call)
                 for k in call.keywords if k.arg == keyword and isinstance(k.value, ast.BoolOp)
                 and isinstance(k.value.op, ast.Or) and _is_text(k.value.values[-1]))
        return self._first(relative, function, found, f"{keyword}=... or '...'")

    def code_docstring(self, relative: str, function: str) -> str:
        """The docstring of ``function`` (a memory tool's description)."""
        text = ast.get_docstring(self.function(relative, function), clean=True)
        return self._first(relative, function, iter([text] if text else []), "docstring")

    def code_literal(self, relative: str, function: str, name: str) -> Any:
        """The literal value assigned to ``name`` inside ``function`` (a label table, say); never executed."""
        for child in self._nodes(relative, function):
            if isinstance(child, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in child.targets):
                with contextlib.suppress(ValueError):  # only the first assignment counts
                    return ast.literal_eval(child.value)
                break
        raise OfficialSourceError(f"{self.package_dir / relative}: {function}() has no literal {name} = ...")

    def code_constant(self, relative: str, function: str, keyword: str) -> str:
        """The string constant passed as ``keyword=`` inside ``function`` (a fixed system message, say)."""
        found = [str(k.value.value) for c in self._nodes(relative, function) if isinstance(c, ast.Call)
                 for k in c.keywords if k.arg == keyword and _is_text(k.value)]
        return self._only(relative, function, found, f"passes {{n}} string constants as {keyword}=")

    def code_dict_value(self, relative: str, function: str, key: str) -> str:
        """The string a dictionary literal inside ``function`` gives ``key`` (an initial state's text, say)."""
        found = {str(v.value): None for d in self._nodes(relative, function) if isinstance(d, ast.Dict)
                 for k, v in zip(d.keys, d.values, strict=True)
                 if isinstance(k, ast.Constant) and k.value == key and _is_text(v)}
        return self._only(relative, function, list(found), f"gives {key!r} {{n}} different strings")

    def code_choice(self, relative: str, function: str, name: str, language_key: str) -> str:
        """The string ``function`` assigns to ``name`` for ``language_key``, from a ``a if language == KEY else
        b`` expression (a fixed line in two languages)."""
        found = (str(choice.body.value if key == language_key else choice.orelse.value)
                 for c in self._nodes(relative, function) if isinstance(c, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == name for t in c.targets)
                 and isinstance(choice := c.value, ast.IfExp) and (key := _language_test(choice)) is not _NO_TEST
                 and isinstance(choice.body, ast.Constant) and isinstance(choice.orelse, ast.Constant))
        return self._first(relative, function, found, f"{name} = 'a' if language == '...' else 'b'")

    def code_heading(self, relative: str, function: str) -> str:
        """The first string constant ``function`` puts first in a ``"..." + ...`` concatenation, in source order."""
        found = sorted((b.left for b in self._nodes(relative, function) if isinstance(b, ast.BinOp)
                        and isinstance(b.op, ast.Add) and _is_text(b.left)), key=lambda c: (c.lineno, c.col_offset))
        return self._first(relative, function, (str(c.value) for c in found), "heading")

    def code_returned(self, relative: str, function: str) -> str:
        """The one string constant ``function`` returns (its fallback text, say)."""
        found = [str(r.value.value) for r in self._nodes(relative, function) if isinstance(r, ast.Return)
                 and _is_text(r.value)]
        return self._only(relative, function, found, "returns {n} string constants")

    def _nodes(self, relative: str, function: str) -> Iterator[ast.AST]:
        return ast.walk(self.function(relative, function))

    def _first(self, relative: str, function: str, found: Iterator[_T], missing: str) -> _T:
        """The first of ``found``; none: an error saying ``function`` has no ``missing``."""
        for value in found:
            return value
        raise OfficialSourceError(f"{self.package_dir / relative}: {function}() has no {missing}")

    def _only(self, relative: str, function: str, found: list[_T], what: str) -> _T:
        """The one of ``found``; else an error: ``what`` with ``{n}``, how many there are."""
        if len(found) != 1:
            raise OfficialSourceError(f"{self.package_dir / relative}: {function}() "
                                      f"{what.replace('{n}', str(len(found)))} (expected one)")
        return found[0]

    def check(self) -> None:
        """Read every file once, so a missing or unreadable one fails before any item runs."""
        for name in PROMPTS:
            for language in LANGUAGE_KEYS:
                self.prompt(name, language)
        for domain in DOMAINS:
            for language in LANGUAGE_KEYS:
                self.tool_descriptions(domain, language)


def locate(value: str | None) -> OfficialSource | None:
    """The official source ``--vita-official-source`` names: ``none`` (``None``), ``auto`` or a directory.

    A directory may be a checkout (``DIR/src/vita``), a ``src`` directory (``DIR/vita``) or the ``vita``
    package directory itself. ``auto`` takes ``$VITA_OFFICIAL_SOURCE`` when it is set (a directory or ``none``),
    else finds the installed ``vita`` package's directory without importing it.

    Raises:
        OfficialSourceError: Nothing usable there; the message says what was looked for and how to fix it.
    """
    text = (value or NONE).strip()
    if text.lower() == AUTO and os.environ.get(ENVIRONMENT, "").strip():
        text = os.environ[ENVIRONMENT].strip()
        if text.lower() == AUTO:
            raise OfficialSourceError(f"${ENVIRONMENT} must be a directory or none, not auto")
    if text.lower() == NONE:
        return None
    source = _installed() if text.lower() == AUTO else _in_directory(Path(text).expanduser())
    source.check()
    return source


def _in_directory(root: Path) -> OfficialSource:
    if not root.is_dir():
        raise OfficialSourceError(f"--vita-official-source {root}: no such directory (expected a checkout of "
                                  "meituan-longcat/VitaBench-2.0 or its src/vita package directory)")
    for candidate, found_as in ((root / "src" / "vita", "checkout"), (root / "vita", "checkout"),
                                (root, "package directory")):
        if _is_package(candidate):
            return OfficialSource(candidate.resolve(), found_as)
    raise OfficialSourceError(
        f"--vita-official-source {root}: not the official VitaBench 2.0 harness (looked for prompts/ and domains/ "
        f"in {root / 'src' / 'vita'}, {root / 'vita'} and {root})")


def _installed() -> OfficialSource:
    # find_spec of a top-level name locates the package without running its __init__.
    spec = importlib.util.find_spec("vita")
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations:
        raise OfficialSourceError(
            "--vita-official-source auto: no installed 'vita' package (the official VitaBench 2.0 harness) in this "
            "Python environment; install it (pip install -e <checkout>) or pass --vita-official-source DIR (a "
            "checkout of meituan-longcat/VitaBench-2.0), or --vita-official-source none for our own wording "
            "(not comparable with the leaderboard)")
    for location in locations:
        package = Path(location)
        if _is_package(package):
            return OfficialSource(package.resolve(), "installed package")
    raise OfficialSourceError(f"--vita-official-source auto: the installed 'vita' package at {locations[0]} has no "
                              "prompts/ and domains/: it is not the official VitaBench 2.0 harness")


def _is_package(path: Path) -> bool:
    return (path / "prompts").is_dir() and (path / "domains").is_dir()


#: Files that mark a project's root: the walk up from the package stops at the first folder holding one.
_PROJECT_ROOT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg")


def _harness_root(package_dir: Path) -> Path | None:
    """The harness's own project folder: the nearest of ``package_dir`` and the checkout above it
    (``<checkout>/src/vita``) that marks a project root. Never further up, nor out of an installed package's
    ``site-packages``: a repository that merely contains the copy (a vendored folder, a virtual environment
    inside a checkout) says nothing about the harness."""
    for root in (package_dir, *package_dir.parents[:2]):
        if root.name in ("site-packages", "dist-packages"):
            return None
        if any((root / marker).exists() for marker in _PROJECT_ROOT_MARKERS):
            return root
    return None


def _git_commit(package_dir: Path) -> str | None:
    """The commit checked out in the harness's own repository, read from ``.git`` without running git."""
    root = _harness_root(package_dir)
    if root is not None:
        git = root / ".git"
        if git.is_file():  # a worktree or submodule: "gitdir: <path>"
            text = git.read_text(encoding="utf-8").strip()
            if not text.startswith("gitdir:"):
                return None
            git = (root / text.split(":", 1)[1].strip()).resolve()
        if git.is_dir():
            return _resolve_head(git)
    return None


def _resolve_head(git: Path) -> str | None:
    try:
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not head.startswith("ref:"):
        return head or None
    ref = head.split(":", 1)[1].strip()
    common = git
    if (git / "commondir").is_file():
        common = (git / (git / "commondir").read_text(encoding="utf-8").strip()).resolve()
    for base in (git, common):
        if (base / ref).is_file():
            return (base / ref).read_text(encoding="utf-8").strip()
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0]
    return None


def _parse(path: Path, what: str) -> ast.Module:
    try:
        return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        raise OfficialSourceError(f"cannot read the official {what} {path}: {exc}") from None


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function and method of ``tree`` by name; the first definition in walk order wins."""
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.setdefault(node.name, node)
    return found


def _is_text(node: ast.AST | None) -> TypeGuard[ast.Constant]:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


#: What :func:`_language_test` gives a node that is no comparison with a constant.
_NO_TEST = object()


def _language_test(node: ast.If | ast.IfExp) -> Any:
    """The constant ``node``'s test compares with (``language == "chinese"``), else :data:`_NO_TEST`."""
    test = node.test
    if isinstance(test, ast.Compare) and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant):
        return test.comparators[0].value
    return _NO_TEST


def _template(node: ast.JoinedStr) -> Template | None:
    """``node`` as a template, or ``None`` when a field is more than a plain name (it could not be filled)."""
    text, fields = [], []
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            text.append(part.value.replace("{", "{{").replace("}", "}}"))
        elif (isinstance(part, ast.FormattedValue) and part.conversion == -1 and part.format_spec is None
              and (name := _field_name(part.value)) is not None):
            text.append("{" + name + "}")
            fields.append(name)
        else:
            return None
    return Template("".join(text), tuple(fields))


def _field_name(value: ast.expr) -> str | None:
    """The field an f-string part fills: ``{name}``, ``{self.name}`` and ``{chunk['name']}`` all fill ``name``."""
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Attribute):
        return value.attr
    if (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant)
            and isinstance(value.slice.value, str)):
        return value.slice.value
    return None


def read_prompt_file(path: Path) -> dict[str, str]:
    """An official prompt file: a YAML mapping of names to texts (block literals, mostly), read as the official
    harness reads it.

    Raises:
        OfficialSourceError: The file is missing, is not YAML, or is not a mapping.
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise OfficialSourceError(f"cannot read the official prompt file {path}: {exc}") from None
    if not isinstance(data, dict):
        raise OfficialSourceError(f"{path}: not a YAML mapping of prompt texts")
    return {str(key): str(value) for key, value in data.items()}


def literal_assignment(path: Path, name: str) -> dict[str, Any]:
    """The literal value assigned to module-level ``name`` in ``path``, parsed with :mod:`ast`, never run.

    Raises:
        OfficialSourceError: The file is missing, is not Python, has no such assignment, or its value is not a
            literal dictionary.
    """
    for node in _parse(path, "tool descriptions").body:
        if isinstance(node, ast.Assign):
            targets, expression = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, expression = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            try:
                value = ast.literal_eval(expression)
            except ValueError:
                raise OfficialSourceError(f"{path}:{node.lineno}: {name} is not a literal dictionary") from None
            if not isinstance(value, dict):
                raise OfficialSourceError(f"{path}:{node.lineno}: {name} is not a dictionary")
            return value
    raise OfficialSourceError(f"{path}: no module-level {name} = {{...}} (the official tool descriptions)")

"""The path of one demo item through the package: its call stack where the judge runs, and the modules it passes.

    python benchmarks/item_path.py             # the figures
    python benchmarks/item_path.py --show      # and the package's frames on the stack at the judge

Runs ``pytest suites/demo`` in this process on two items (``full_context``, trial 0, the first two subtasks of
the first user) with ``sys.setprofile`` on while the second one runs (the first pays the imports and builds
the session-scoped roles, which every later item reuses). Printed:

* the depth of the call stack when the rules judge's ``judge`` is entered: all frames, and those in
  ``pytest_vitabench/`` (the pytest frames below the item are the same whatever the plugin does);
* how many ``pytest_vitabench`` modules the item's calls pass through, and how many times a call goes from
  one package module into another it had already left (a path that comes back).

Measure another checkout with the same interpreter: ``PYTHONPATH=/path/to/checkout python
/path/to/checkout/benchmarks/item_path.py`` (or this script, pointed at it with ``--repo``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest


class _Tracer:
    """Records the package frames of one item's run (a pytest plugin around ``pytest_runtest_protocol``)."""

    def __init__(self, package: Path, measured: str):
        self.package = str(package) + os.sep
        self.measured = measured
        self.modules: list[str] = []
        self.returns = 0
        self.judge_stack: list[str] | None = None
        self.judge_depth = 0

    def _module(self, frame: FrameType) -> str | None:
        filename = frame.f_code.co_filename
        return filename[len(self.package):] if filename.startswith(self.package) else None

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        module = self._module(frame)
        if module is None:
            return
        if not self.modules or self.modules[-1] != module:
            if module in self.modules:
                self.returns += 1
            self.modules.append(module)
        if self.judge_stack is None and frame.f_code.co_name == "judge" and module.startswith("judges" + os.sep):
            stack, depth, current = [], 0, frame
            while current is not None:
                depth += 1
                where = self._module(current)
                if where is not None:
                    stack.append(f"{where}:{current.f_code.co_name}")
                current = current.f_back
            self.judge_stack, self.judge_depth = stack[::-1], depth

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Any:
        if item.nodeid != self.measured:
            return (yield)
        sys.setprofile(self._profile)
        try:
            return (yield)
        finally:
            sys.setprofile(None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the checkout whose package and demo suite run (default: this one)")
    parser.add_argument("--show", action="store_true", help="print the package's frames at the judge")
    args = parser.parse_args()
    repo = args.repo.resolve()
    sys.path.insert(0, str(repo))
    os.chdir(repo)
    import pytest_vitabench

    package = Path(pytest_vitabench.__file__).resolve().parent
    first = "suites/demo/tasks.json::U100001::sub_U100001_1[full_context-t0]"
    measured = "suites/demo/tasks.json::U100001::sub_U100001_2[full_context-t0]"
    tracer = _Tracer(package, measured)
    status = pytest.main(["-q", "-p", "no:cacheprovider", "--vita-trials", "1", "--vita-memory", "full_context",
                          first, measured], plugins=[tracer])
    if tracer.judge_stack is None:
        print(f"the judge did not run in {measured} (pytest exit status {status})")
        return 1
    print(f"package: {package}")
    print(f"call stack at the judge: {tracer.judge_depth} frames, {len(tracer.judge_stack)} of them in the package")
    print(f"package modules one item passes through: {len(set(tracer.modules))} "
          f"({len(tracer.modules)} module changes, {tracer.returns} back into a module already left)")
    if args.show:
        print("\n".join(f"  {frame}" for frame in tracer.judge_stack))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

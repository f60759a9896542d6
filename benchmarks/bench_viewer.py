"""The viewer at paper scale: file size, build time, first paint, opening one trajectory, browser memory.

    python benchmarks/bench_viewer.py                       # makes /tmp/paper3.json first if it is missing
    python benchmarks/bench_viewer.py --report run.json --runs 3

The report is the paper suite x 3 backends x 4 trials with the offline built-ins (9,408 items):
``pytest suites/paper -n 2 --vita-memory none,groundtruth,full_context --vita-report /tmp/paper3.json``.
Chromium is the OS package (``/usr/bin/chromium``), driven by Playwright; every figure is printed with the
machine's load average, since the numbers depend on what else runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[1]


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _pss_kb(pids: set[int]) -> int:
    """Proportional set size of these processes (shared pages split between them, so the sum is honest)."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


def _chromium_pids() -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if b"chromium" in (entry / "cmdline").read_bytes():
                    out.add(int(entry.name))
            except OSError:
                continue
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--report", default="/tmp/paper3.json")
    parser.add_argument("--html", default=None, help="where to write the page (default: REPORT.html)")
    parser.add_argument("--runs", type=int, default=3, help="page loads to time (the median is printed)")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    report = Path(args.report)
    if not report.exists():
        print(f"{report} missing: running the paper suite x 3 backends x 4 trials (a few minutes) ...", flush=True)
        subprocess.run([sys.executable, "-m", "pytest", "suites/paper", "-n", "2", "-q", "-p", "no:cacheprovider",
                        "--vita-memory", "none,groundtruth,full_context", "--vita-report", str(report)],
                       cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
    from pytest_vitabench.commands.view import render_run_page
    from pytest_vitabench.runs.reader import load_run

    print(f"report: {report} ({report.stat().st_size / 1e6:.1f} MB)   load: {_load()}")
    start = time.perf_counter()
    run = load_run(report)
    loaded = time.perf_counter()
    page_html = render_run_page(run)
    built = time.perf_counter()
    html = Path(args.html) if args.html else report.with_suffix(".html")
    html.write_text(page_html, encoding="utf-8")
    n_items = len(run.results)
    print(f"items: {n_items}")
    print(f"viewer file: {html} {html.stat().st_size / 1e6:.1f} MB")
    print(f"build: read report {loaded - start:.1f} s + page {built - loaded:.1f} s   load: {_load()}")
    del run, page_html

    from playwright.sync_api import sync_playwright

    before = _chromium_pids()
    paints, readies, opens, memories, heaps = [], [], [], [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=ARGS)
        pids = _chromium_pids() - before
        blank = browser.new_page()
        blank.goto("about:blank")
        blank_pss = _pss_kb(_chromium_pids() - before) / 1e3
        blank.close()
        for _ in range(args.runs):
            page = browser.new_page(bypass_csp=True)  # the page's own CSP forbids the evaluate() calls below
            t0 = time.perf_counter()
            page.goto(html.resolve().as_uri(), wait_until="commit")
            page.wait_for_selector("body[data-ready='1']", timeout=300_000)
            ready = time.perf_counter() - t0
            fcp = page.evaluate("() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime")
            readies.append(ready)
            paints.append((fcp or float("nan")) / 1000)
            # The heaviest kind of item: a full_context one (its memory text is the largest).
            page.select_option("#f-memory", "full_context")
            t1 = time.perf_counter()
            page.locator("#rows tr.row").nth(7).click()
            page.wait_for_selector("#detail .messages")
            opens.append(time.perf_counter() - t1)
            t2 = time.perf_counter()
            page.click("#detail details.memory summary")
            page.wait_for_selector("#detail details.memory[data-filled='1']")
            memories.append(time.perf_counter() - t2)
            heaps.append(page.evaluate("() => performance.memory.usedJSHeapSize") / 1e6)
            pss = _pss_kb(pids | (_chromium_pids() - before)) / 1e3
            page.close()
        browser.close()

    def med(xs: list[float]) -> float:
        return sorted(xs)[len(xs) // 2]

    print(f"first contentful paint: {med(paints):.2f} s (median of {args.runs}; all: "
          f"{', '.join(f'{x:.2f}' for x in paints)})")
    print(f"page ready (index parsed, list shown): {med(readies):.2f} s "
          f"(all: {', '.join(f'{x:.2f}' for x in readies)})")
    print(f"open one full_context trajectory (click to conversation shown): {med(opens) * 1000:.0f} ms "
          f"(all: {', '.join(f'{x * 1000:.0f}' for x in opens)})")
    print(f"then show its memory text: {med(memories) * 1000:.0f} ms "
          f"(all: {', '.join(f'{x * 1000:.0f}' for x in memories)})")
    print(f"browser memory: JS heap {med(heaps):.0f} MB; all Chromium processes {pss:.0f} MB PSS (last run; "
          f"{blank_pss:.0f} MB with an about:blank page)")
    print(f"load: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The OS Chromium for the browser tests, driven by Playwright (nothing downloads a browser).

A test that needs it calls :func:`launch`, which skips with the reason when Chromium or Playwright is missing
(CI's ``.ci/run`` installs the ``chromium`` package; a failed install makes these tests skip, not fail).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


@contextmanager
def launch() -> Iterator[tuple[Any, Any]]:
    """``(browser, playwright.sync_api)`` for the duration of the block; skips when either is missing."""
    if CHROMIUM is None:
        pytest.skip("no Chromium installed (apt-get install chromium); the browser tests need it")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser, sync_api
        finally:
            browser.close()

"""The documentation site as a reader gets it: built with ``mkdocs build --strict``, served on 127.0.0.1, opened in
the OS Chromium (Playwright). The home page renders, a nav link leads to its page, and the search box finds a page.

Slow (it builds the site and starts a browser): listed in the root conftest.py's ``SLOW_TESTS``.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from _browser import launch
from _paths import REPO_ROOT


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the signature is http.server's
        pass


@pytest.fixture(scope="module")
def site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("material", reason="mkdocs-material is not installed (pip install -e '.[docs]')")
    site = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                            "--config-file", str(REPO_ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                           cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert (Path(site) / "index.html").is_file()
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def page(site_url: str):
    with launch() as (browser, sync_api):
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
        page.on("console", lambda msg: problems.append(f"console: {msg.text}") if msg.type == "error" else None)
        # The site must work offline: no web fonts, no CDN, nothing beyond the server that serves it.
        page.on("request", lambda req: None if req.url.startswith((site_url, "data:", "blob:"))
                else problems.append(f"request beyond the site: {req.url}"))
        yield page, sync_api.expect
        assert problems == []


def test_the_home_page_renders_with_its_navigation(page, site_url):
    page, expect = page
    page.goto(site_url)
    expect(page).to_have_title("pytest-vitabench")
    expect(page.locator("article h1")).to_contain_text("pytest-vitabench")
    expect(page.locator("article table")).to_contain_text("Point it at a model")
    nav = page.locator("nav.md-nav--primary")
    for title in ("Tutorial", "Choose a memory backend", "The official profile", "Options", "Contributing"):
        expect(nav.get_by_role("link", name=title, exact=True)).to_have_count(1)


def test_a_nav_link_opens_its_page(page, site_url):
    page, expect = page
    page.goto(site_url)
    page.locator("nav.md-nav--primary").get_by_role("link", name="Options", exact=True).click()
    expect(page).to_have_url(f"{site_url}reference/")
    expect(page.locator("article h1")).to_contain_text("Options")
    # the generated reference: a rendered table row per option, the help text beside it
    expect(page.locator("article table code", has_text="--vita-resume[=RUN]")).to_have_count(1)


def test_the_search_box_finds_a_page(page, site_url):
    page, expect = page
    page.goto(site_url)
    search = page.locator("input.md-search__input")  # in the header on a wide screen
    search.click()
    search.press_sequentially("circuit breaker", delay=20)  # the search reacts to keystrokes, not to a set value
    results = page.locator(".md-search-result__item")
    expect(results.first).to_be_visible(timeout=30_000)
    ci_page = results.filter(has_text="CI: exit statuses")
    expect(ci_page).to_have_count(1)
    ci_page.locator("a").first.click()
    expect(page).to_have_url(re.compile(re.escape(f"{site_url}ci/")))
    expect(page.locator("article h1")).to_contain_text("CI: exit statuses")

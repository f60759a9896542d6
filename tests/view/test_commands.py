"""vitabench view / plot / compare on a real saved run of the demo suite, and their bad inputs."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from _paths import REPO_ROOT

from pytest_vitabench.commands.cli import main


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    for memory in ("full_context", "none"):
        subprocess.run([sys.executable, "-m", "pytest", str(REPO_ROOT / "suites" / "demo" / "tasks.json"), "-q",
                        "-p", "no:cacheprovider", "--vita-trials", "1", "--vita-memory", memory,
                        "--vita-report", str(root / f"{memory}.json")], cwd=root, capture_output=True, check=False)
    return root / "full_context.json", root / "none.json"


def test_view_writes_one_self_contained_page(runs, tmp_path, capsys):
    out = tmp_path / "page.html"
    assert main(["view", str(runs[0]), "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    page = out.read_text()
    assert not re.search(r"(src|href)=[\"']?(https?:)?//", page)  # no CDN, no network
    assert 'http-equiv="Content-Security-Policy" content="default-src \'none\'' in page
    meta = json.loads(re.search(r'<script type="application/json" id="vita-meta">(.*?)</script>', page).group(1))
    assert meta["metrics_lines"][0].startswith("VitaBench metrics (k=1")
    assert meta["suites"][0]["problem"] is None and meta["failures"]["cells"]
    names = json.loads(re.search(r'id="vita-names">(.*?)</script>', page).group(1))
    assert names["P100002020302"] == "first class"
    n_items = len(json.loads(runs[0].read_text())["results"])
    assert page.count('id="vita-chunk-') == 20 and n_items == 20


def test_view_degrades_to_ids_when_the_suite_is_gone(runs, tmp_path):
    data = json.loads(runs[0].read_text())
    data["config"]["suites"] = {"/gone/tasks.json": "0" * 64}
    for record in data["results"]:
        record["suite"] = "/gone/tasks.json"
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps(data))
    out = tmp_path / "page.html"
    assert main(["view", str(moved), "-o", str(out)]) == 0
    page = out.read_text()
    assert "not found (product and store names are shown as ids)" in page
    assert re.search(r'id="vita-names">\{\}</script>', page)
    # --suite-dir finds it again by name
    assert main(["view", str(moved), "-o", str(out), "--suite-dir", str(REPO_ROOT / "suites" / "demo")]) == 0
    assert "changed since the run" in out.read_text()


def test_view_and_plot_refuse_bad_input(tmp_path, capsys):
    (tmp_path / "bad.json").write_text("{}")
    assert main(["view", str(tmp_path / "bad.json"), "-o", str(tmp_path / "x.html")]) == 2
    assert main(["view", str(tmp_path / "absent.json"), "-o", str(tmp_path / "x.html")]) == 2
    assert main(["plot", str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err
    assert "vitabench view:" in err and "vitabench plot:" in err and not (tmp_path / "x.html").exists()


def test_plot_writes_each_figure(runs, tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="vitabench plot needs matplotlib (the plot extra)")
    assert main(["plot", str(runs[0]), "-o", str(tmp_path), "--format", "svg"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{n}.svg" for n in ("position", "domain", "backend", "skill", "pass_hat_k"))
    assert main(["plot", str(runs[0]), "-o", str(tmp_path), "--format", "gif"]) == 2


def test_compare_lists_regressions_with_links_and_gates(runs, tmp_path, capsys):
    full_context, none = runs
    assert main(["compare", str(full_context), str(none), "--viewer", "none.html", "--limit", "2",
                 "--json", str(tmp_path / "c.json")]) == 0
    out = capsys.readouterr().out
    assert "(paired per user and subtask; full_context vs none)" in out
    assert "change -0.800 [-0.950, -0.650]" in out and "significant drop" in out
    assert "regressed: 16 subtask(s)" in out and "none.html#unit=U100001/sub_U100001_1/none" in out
    assert json.loads((tmp_path / "c.json").read_text())["discordant"] == {"pass_to_fail": 16, "fail_to_pass": 0}
    assert main(["compare", str(full_context), str(none), "--fail-regression", "0.1"]) == 1
    assert "REGRESSION: Avg drop 0.800 > allowed 0.100" in capsys.readouterr().out
    assert main(["compare", str(none), str(full_context), "--fail-regression", "0.1"]) == 0
    assert main(["compare", str(full_context), str(tmp_path / "absent.json")]) == 2

"""build_viewer: what goes into the page, and that run data cannot break out of its script blocks."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path

from pytest_vitabench.runs.reader import Run
from pytest_vitabench.view.catalogue import Catalogue
from pytest_vitabench.view.html import INDEX_COLUMNS, build_viewer

HOSTILE = "</script><script>alert(1)</script><!--"


def _run():
    results, heavy = [], {}
    for trial in range(2):
        nodeid = f"s.json::U1::s1[full_context-t{trial}]"
        results.append({"nodeid": nodeid, "user_id": "U1", "subtask_id": "s1", "subtask_index": 0, "domain": "ota",
                        "skills": ["personalize"], "memory": "full_context", "trial": trial, "reward": 0.0,
                        "outcome": "failed", "termination": "user_stop", "steps": 3,
                        "rubrics": [{"text": HOSTILE, "met": False, "reason": "product_ids is ['P100002020302']"}],
                        "usage": {"agent": {"prompt_tokens": 10, "completion_tokens": 5, "cost": 0.25}}})
        heavy[nodeid] = {"messages": [{"role": "user", "content": HOSTILE}],
                         "memory_snapshot": "- likes trains\n- second class" if trial == 0 else "- likes trains"}
    report = {"schema": "vitabench-report/1", "config": {"model": "x"}, "results": results}
    return Run(report, source=Path("run.json"), store=None, inline=heavy)


def _unpack(page, element_id):
    packed = re.search(rf'id="{element_id}">(.*?)</script>', page).group(1)
    return json.loads(gzip.decompress(base64.b64decode(packed)))


def test_hostile_text_stays_inside_its_block_and_heavy_data_is_packed_per_subtask():
    page = build_viewer(_run(), catalogue=Catalogue(names={"P100002020302": "first class"}),
                        failures={"items": {"s.json::U1::s1[full_context-t0]": "preference_missing"}})
    assert HOSTILE not in page and page.count("<script>") == 1  # the app itself; run data only in typed blocks
    index = json.loads(re.search(r'id="vita-index">(.*?)</script>', page).group(1))
    row = dict(zip(INDEX_COLUMNS, index[0], strict=True))
    assert row["category"] == "preference_missing" and row["tokens"] == 15 and row["cost"] == 0.25
    assert row["summary"].startswith("x </script>") and row["chunk"] == 0 and index[1][-1] == 0
    chunk = _unpack(page, "vita-chunk-0")
    assert set(chunk) == {"0", "1"} and chunk["0"]["messages"] == [{"role": "user", "content": HOSTILE}]
    # Memory lines are stored once per user and referenced by number.
    assert _unpack(page, "vita-lines-0") == ["- likes trains", "- second class"]
    assert _unpack(page, "vita-memories") == [[0, [0, 1]], [0, [0]]]
    assert json.loads(re.search(r'id="vita-names">(.*?)</script>', page).group(1)) == {"P100002020302": "first class"}


def test_without_a_catalogue_no_names_are_embedded():
    page = build_viewer(_run())
    assert re.search(r'id="vita-names">\{\}</script>', page)


def test_the_item_detail_shows_cached_prompt_tokens_per_role(tmp_path):
    """The viewer's own usage renderer, run by Node: cached tokens appear only where a provider reported them."""
    import shutil
    import subprocess

    import pytest

    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node.js installed; the viewer's script is checked in a browser test elsewhere")
    template = (Path(__file__).parents[2] / "pytest_vitabench" / "view" / "viewer.html").read_text()
    functions = [re.search(rf"^function {name}\(.*?\}}$", template, re.M | re.S).group(0)
                 for name in ("esc", "usageText")]
    usage = {"agent": {"prompt_tokens": 3000, "cached_prompt_tokens": 2048, "completion_tokens": 20, "cost": 0.5},
             "user": {"prompt_tokens": 40, "completion_tokens": 5, "cost": 0.0}, "judge": {"prompt_tokens": 0}}
    script = "\n".join(functions) + f"\nprocess.stdout.write(usageText({json.dumps(usage)}));"
    (tmp_path / "usage.js").write_text(script)
    shown = subprocess.run([node, str(tmp_path / "usage.js")], capture_output=True, text=True, check=True).stdout
    assert shown == "agent 3000 (2048 cached)+20 tok $0.5000; user 40+5 tok $0.0000"
    page = build_viewer(_run())
    record = _unpack(page, "vita-chunk-0")["0"]
    assert record["usage"] == _run().results[0]["usage"]  # the usage per role travels to the page as it is

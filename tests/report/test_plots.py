"""The paper's figures: their data, and the PNG/SVG files."""

from __future__ import annotations

import pytest

from pytest_vitabench.metrics import compute_metrics
from pytest_vitabench.report.plots import FIGURES, plot_data, render_plots
from pytest_vitabench.result import ItemResult


def _results():
    out = []
    # U1: s1 (position 1) always passes, s2 (position 2) passes in 2 of 4 trials; U2: s1 fails once.
    for user, sub, index, rewards, domain, skill in [
        ("U1", "s1", 0, [1, 1, 1, 1], "delivery", "personalize"),
        ("U1", "s2", 1, [1, 0, 1, 0], "ota", "proactive"),
        ("U2", "s1", 0, [1, 1, 1, 0], "delivery", "personalize"),
    ]:
        for trial, reward in enumerate(rewards):
            out.append(ItemResult(nodeid=f"f::{user}::{sub}[m-t{trial}]", user_id=user, subtask_id=sub,
                                  subtask_index=index, domain=domain, skills=[skill], memory="m", trial=trial,
                                  reward=float(reward), outcome="passed" if reward else "failed"))
    return out


def test_plot_data_holds_each_paper_analysis():
    results = _results()
    records = [r.model_dump(mode="json") for r in results]
    data = plot_data(records, compute_metrics(results, bootstrap=50))
    assert set(data) == set(FIGURES)
    assert data["position"] == {"positions": [1, 2], "series": {"m": [[7 / 8, 8], [0.5, 4]]}}
    # Pass^k per unit: 1, C(2,k)/C(4,k), C(3,k)/C(4,k); averaged over 3 units.
    assert data["pass_hat_k"]["ks"] == [1, 2, 3, 4]
    expected = [(1 + 2 / 4 + 3 / 4) / 3, (1 + 1 / 6 + 3 / 6) / 3, (1 + 0 + 1 / 4) / 3, 1 / 3]
    assert data["pass_hat_k"]["series"]["m"] == pytest.approx(expected)
    assert data["domain"]["groups"] == ["delivery", "ota"]
    assert data["domain"]["series"]["m"][1][0] == pytest.approx(0.5)
    assert data["skill"]["groups"] == ["personalize", "proactive"]
    assert data["backend"]["groups"] == ["m"]
    assert data["backend"]["series"]["Avg@k"][0][0] == pytest.approx((1 + 0.5 + 0.75) / 3)


def test_every_backend_is_its_own_group_and_a_zero_bar_is_labelled(tmp_path):
    """Two backends are two x groups (not one group "all"), and a backend that scored 0 shows its 0.00."""
    results = _results()
    results += [r.model_copy(update={"memory": "none", "reward": 0.0, "outcome": "failed",
                                     "nodeid": r.nodeid.replace("[m-", "[none-")}) for r in _results()]
    data = plot_data([r.model_dump(mode="json") for r in results], compute_metrics(results, bootstrap=50))
    assert data["backend"]["groups"] == ["m", "none"]
    assert [cell[0] for cell in data["backend"]["series"]["Avg@k"]] == [pytest.approx(2.25 / 3), 0.0]
    pytest.importorskip("matplotlib", reason="vitabench plot needs matplotlib (the plot extra)")
    render_plots(data, tmp_path, ["svg"])
    svg = (tmp_path / "backend.svg").read_text()
    assert "0.00" in svg and "0.75" in svg


def test_errors_count_as_zero_and_skipped_items_are_left_out():
    results = _results()
    results[0] = results[0].model_copy(update={"outcome": "error"})
    results[1] = results[1].model_copy(update={"outcome": "skipped"})
    data = plot_data([r.model_dump(mode="json") for r in results], {})
    assert data["position"]["series"]["m"][0] == [5 / 7, 7]
    assert data["domain"] == {"groups": [], "series": {}}


def test_render_writes_png_and_svg(tmp_path):
    pytest.importorskip("matplotlib", reason="vitabench plot needs matplotlib (the plot extra)")
    results = _results()
    data = plot_data([r.model_dump(mode="json") for r in results], compute_metrics(results, bootstrap=50))
    written = render_plots(data, tmp_path, ["png", "svg"])
    assert len(written) == 2 * len(FIGURES)
    assert (tmp_path / "position.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = (tmp_path / "pass_hat_k.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "Pass^k" in svg

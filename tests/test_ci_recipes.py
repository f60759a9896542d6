"""The CI recipes in examples/ci/ run as written: their shell steps, on loopback.

The GitHub Actions workflow's ``run:`` steps are executed with bash, one project copy per matrix entry (a
runner each), all shards at once; ``actions/upload-artifact`` and ``download-artifact`` are played by copying
the uploaded path into one directory per artifact and merging them as ``merge-multiple`` does; checkout,
setup-python and the ``Install`` steps are what this environment already is. The Kubernetes Indexed Job's
container command runs once per completion index with ``JOB_COMPLETION_INDEX`` set, the mount points
(``/runs``, ``/suites``) moved into a temporary directory; then the merge Job's command.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _paths import REPO_ROOT

yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (it is in the dev extra)")

RECIPES = REPO_ROOT / "examples" / "ci"
DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SLURM_", "JOB_COMPLETION"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # pytest and vitabench
    env["HOME"] = str(tmp_path)
    return env


def _expand(text: str, context: dict[str, str]) -> str:
    """GitHub's ``${{ name }}`` expressions, for the names the recipe uses (an unknown one fails the test)."""
    def value(match: re.Match[str]) -> str:
        name = match.group(1).strip()
        assert name in context, f"the workflow uses ${{{{ {name} }}}}, which this test does not provide"
        return context[name]

    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


def _steps(job: dict, context: dict[str, str], workflow_env: dict[str, str]) -> list[tuple[str, dict]]:
    """``(kind, step)`` for each step: ``run`` (with its env expanded), ``upload``, ``download`` or ``skip``."""
    out = []
    for step in job["steps"]:
        uses = step.get("uses", "")
        if "run" in step and step.get("name") != "Install":
            env = {**workflow_env, **{k: _expand(str(v), context) for k, v in (step.get("env") or {}).items()}}
            out.append(("run", {"run": _expand(step["run"], context), "env": env}))
        elif uses.startswith("actions/upload-artifact"):
            out.append(("upload", {k: _expand(str(v), context) for k, v in step["with"].items()}))
        elif uses.startswith("actions/download-artifact"):
            out.append(("download", dict(step["with"])))
        else:
            assert uses.startswith(("actions/checkout", "actions/setup-python")) or step.get("name") == "Install", step
            out.append(("skip", step))
    return out


def _runner(tmp_path: Path, name: str) -> Path:
    """A fresh checkout: the suite where the workflow expects it."""
    workdir = tmp_path / name
    (workdir / "suites" / "demo").mkdir(parents=True)
    shutil.copy(DEMO, workdir / "suites" / "demo" / "tasks.json")
    (workdir / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return workdir


@pytest.mark.slow
def test_the_github_workflow_runs_its_shards_in_parallel_then_merges(tmp_path):
    workflow = yaml.safe_load((RECIPES / "github-actions.yml").read_text())
    workflow_env = {k: str(v) for k, v in workflow["env"].items()}
    shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    assert merge_job["needs"] == "shard" and merge_job["if"] == "always()"
    matrix = shard_job["strategy"]["matrix"]["shard"]
    artifacts = tmp_path / "artifacts"
    env = _env(tmp_path)

    # each matrix entry on its own "runner", all at once; the upload step runs after its shard finished
    running = []
    for shard in matrix:
        context = {"matrix.shard": str(shard), "strategy.job-total": str(len(matrix)), "github.run_id": "4242",
                   "github.run_attempt": "1"}
        workdir = _runner(tmp_path, f"runner-{shard}")
        steps = _steps(shard_job, context, workflow_env)
        [run] = [step for kind, step in steps if kind == "run"]
        process = subprocess.Popen(["bash", "-e", "-c", run["run"]], cwd=workdir, env={**env, **run["env"]},
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        running.append((process, workdir, steps))
    for process, workdir, steps in running:
        output = process.communicate(timeout=600)[0]
        assert process.returncode == 0, output[-3000:]  # items failed (exit 1), the step did not
        for kind, upload in steps:
            if kind == "upload":
                assert upload["include-hidden-files"] == "True"  # .vitabench is hidden: without it, nothing
                shutil.copytree(workdir / upload["path"], artifacts / upload["name"])

    merge_dir = _runner(tmp_path, "runner-merge")
    merge_steps = _steps(merge_job, {}, workflow_env)
    for kind, step in merge_steps:
        if kind == "download":
            assert step["merge-multiple"] is True
            target = merge_dir / step["path"]
            pattern = step["pattern"].replace("*", "")
            for artifact in sorted(artifacts.iterdir()):
                if artifact.name.startswith(pattern):
                    shutil.copytree(artifact, target, dirs_exist_ok=True)
        elif kind == "run":
            result = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=merge_dir, env={**env, **step["env"]},
                                    capture_output=True, text=True, timeout=600)
            # the reference agent scores 0.8 on the demo: the merged metrics pass the gate (0.5)
            assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
            assert "vitabench merge: 4 piece(s) of run gh-4242-1, 40 items" in result.stdout
            assert "exit status 0: every gate passed" in result.stdout
    assert (merge_dir / "vitabench-report.json").is_file()
    assert sorted(p.name for p in (merge_dir / "shards" / "gh-4242-1").iterdir()) == [
        f"shard-{i}-of-4" for i in range(1, 5)]


def _k8s_command(document: dict, mounts: dict[str, Path]) -> tuple[str, dict[str, str]]:
    container = document["spec"]["template"]["spec"]["containers"][0]
    assert container["command"] == ["sh", "-c"]
    script = container["args"][0]
    for mount, path in mounts.items():  # a mount point, not the same name inside a path (.vitabench/runs)
        script = re.sub(rf"(?<![\w.]){re.escape(mount)}\b", str(path).replace("\\", "\\\\"), script)
    return script, {e["name"]: e["value"] for e in container.get("env", [])}


@pytest.mark.slow
def test_the_kubernetes_indexed_job_runs_every_index_then_the_merge_job(tmp_path):
    shards_job = yaml.safe_load((RECIPES / "k8s-indexed-job.yaml").read_text())
    merge_job = yaml.safe_load((RECIPES / "k8s-merge-job.yaml").read_text())
    spec = shards_job["spec"]
    assert spec["completionMode"] == "Indexed"
    completions = spec["completions"]
    mounts = {"/runs": tmp_path / "runs", "/suites": tmp_path / "suites"}
    (tmp_path / "runs").mkdir()
    (tmp_path / "suites" / "demo").mkdir(parents=True)
    shutil.copy(DEMO, tmp_path / "suites" / "demo" / "tasks.json")
    (tmp_path / "runs" / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    script, container_env = _k8s_command(shards_job, mounts)
    assert f"--vita-shard auto/{completions}" in script  # the count the Job runs with
    env = {**_env(tmp_path), **container_env}
    pods = [subprocess.Popen(["sh", "-c", script], cwd=tmp_path / "runs",
                             env={**env, "JOB_COMPLETION_INDEX": str(index)},
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for index in range(completions)]
    for pod in pods:
        output = pod.communicate(timeout=600)[0]
        assert pod.returncode == 0, output[-3000:]
    script, merge_env = _k8s_command(merge_job, mounts)
    result = subprocess.run(["sh", "-c", script], cwd=tmp_path / "runs", env={**_env(tmp_path), **merge_env},
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    run_id = merge_env["VITA_RUN_ID"]
    assert f"vitabench merge: {completions} piece(s) of run {run_id}, 40 items" in result.stdout
    assert (tmp_path / "runs" / f"{run_id}.json").is_file()

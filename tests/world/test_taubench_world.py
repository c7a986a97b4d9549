"""Loading τ-bench's worlds: data folder, git checkout layout, errors, conformance, self-check."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sscbench.errors import DataError
from sscbench.world.taubench import load_taubench_world


def test_data_folder_counts(taubench):
    airline = load_taubench_world(taubench, "airline")
    assert airline.counts() == {"flights": 300, "reservations": 2000, "users": 500, "tasks": 50}
    retail = load_taubench_world(taubench, "retail")
    assert retail.counts()["tasks"] == 115 + 500 + 20
    assert [s["function"]["name"] for s in airline.tool_schemas()] == [
        s["function"]["name"] for s in json.loads((taubench / "airline/tools.json").read_text())
    ]


def test_initial_hash_equals_taubench(taubench, taubench_conformance):
    expected = json.loads((taubench_conformance / "initial_hashes.json").read_text())
    for domain in ("airline", "retail"):
        assert load_taubench_world(taubench, domain).base.initial_hash() == expected[domain]


def _make_checkout(root: Path, taubench: Path) -> None:
    folder = root / "tau_bench" / "envs" / "airline"
    (folder / "data").mkdir(parents=True)
    for table in ("flights", "reservations", "users"):
        shutil.copy(taubench / "airline" / f"{table}.json", folder / "data" / f"{table}.json")
    (folder / "wiki.md").write_text("# policy\n")
    tasks = json.loads((taubench / "airline/tasks_test.json").read_text())[:3]
    body = ",\n".join(
        "    Task(annotator={a!r}, user_id={u!r}, instruction={i!r}, actions=[{acts}], outputs={o!r})".format(
            a=t["annotator"],
            u=t["user_id"],
            i=t["instruction"],
            o=t["outputs"],
            acts=", ".join(
                f"Action(name={x['name']!r}, kwargs={x['kwargs']!r})" for x in t["actions"]
            ),
        )
        for t in tasks
    )
    (folder / "tasks_test.py").write_text(
        "from tau_bench.types import Action, Task\n\nTASKS_TEST = [\n" + body + ",\n]\n"
    )


def test_checkout_layout_is_parsed_without_importing(taubench, tmp_path):
    _make_checkout(tmp_path, taubench)
    world = load_taubench_world(tmp_path, "airline")
    original = load_taubench_world(taubench, "airline")
    assert [t.model_dump() for t in world.tasks] == [t.model_dump() for t in original.tasks[:3]]
    assert world.policy == "# policy\n"
    assert world.base.initial_hash() == original.base.initial_hash()


def test_corrupt_file_names_file_and_place(tmp_path):
    folder = tmp_path / "airline"
    folder.mkdir()
    (folder / "flights.json").write_text("{}")
    (folder / "reservations.json").write_text('{"a": ')
    (folder / "users.json").write_text("{}")
    (folder / "policy.md").write_text("p")
    with pytest.raises(DataError) as info:
        load_taubench_world(tmp_path, "airline")
    assert "reservations.json" in str(info.value) and "line 1" in str(info.value)


def test_task_missing_field_is_named(tmp_path):
    folder = tmp_path / "retail"
    folder.mkdir()
    for table in ("orders", "products", "users"):
        (folder / f"{table}.json").write_text("{}")
    (folder / "policy.md").write_text("p")
    (folder / "tasks_test.json").write_text(json.dumps([{"instruction": "x", "actions": []}]))
    with pytest.raises(DataError, match=r"tasks_test.json, field test/0.user_id: required field"):
        load_taubench_world(tmp_path, "retail")


def test_conformance_command_reports_everything_identical(taubench, taubench_conformance):
    episodes = taubench_conformance / "episodes.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "sscbench", "conformance", str(episodes), "--data", str(taubench)],
        capture_output=True,
        text=True,
        check=False,
    )
    last = proc.stdout.strip().splitlines()[-1]
    assert last == (
        "conformance: 3728/3728 observations identical, 1185/1185 final hashes identical"
    ), proc.stdout[-3000:]
    assert proc.returncode == 0


def test_conformance_command_fails_on_a_difference(taubench, taubench_conformance, tmp_path):
    line = (taubench_conformance / "episodes.jsonl").read_text().splitlines()[0]
    episode = json.loads(line)
    episode["steps"][0]["observation"] = "something else"
    (tmp_path / "e.jsonl").write_text(json.dumps(episode) + "\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sscbench",
            "conformance",
            str(tmp_path / "e.jsonl"),
            "--data",
            str(taubench),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert "expected: something else" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1].startswith("conformance: 0/1 observations")


def test_taubench_self_check(taubench):
    from sscbench.world.selfcheck import check_world

    for domain in ("airline", "retail"):
        report = check_world(load_taubench_world(taubench, domain))
        assert report.failed == {}, report.failed
        # a ground truth meets no error but τ-bench's own (tests/world/test_selfcheck.py)
        assert report.unexpected == {}, report.unexpected
        assert len(report.clean) + len(report.known) == report.total

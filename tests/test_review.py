"""The labels schema and the review export."""

from __future__ import annotations

import json

import pytest

from sscbench.errors import DataError
from sscbench.review.labels import empty_label, labels_by_run, read_key, read_labels


def _write(tmp_path, *lines):
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_labels_parse_every_value_kind(tmp_path):
    path = _write(
        tmp_path,
        '{"run_id": "a", "T_F": 3, "T_E": "inf", "T_S": 5, "T_U": "undecidable", "A": 1,'
        ' "Z_S": "absent", "Y_end": "endorses", "note": "n"}',
        "",
        '{"review_id": "r002", "A": false, "T_S": null}',
    )
    first, second = read_labels(path)
    assert first.labelled() == {
        "T_F": 3,
        "T_E": "inf",
        "T_S": 5,
        "T_U": "undecidable",
        "A": True,
        "Z_S": "absent",
        "Y_end": "endorses",
    }
    assert second.labelled() == {"A": False}  # null = not labelled yet
    assert json.loads(empty_label("r009").line())["review_id"] == "r009"


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ('{"run_id": "a", "T_S": "seven"}', "line 2, T_S"),
        ('{"run_id": "a", "T_U": -1}', "line 2, T_U"),
        ('{"run_id": "a", "T_E": true}', "line 2, T_E"),
        ('{"run_id": "a", "A": "yes"}', "line 2, A"),
        ('{"run_id": "a", "Z_S": "early"}', "line 2, Z_S"),
        ('{"run_id": "a", "Y_end": "maybe"}', "line 2, Y_end"),
        ('{"run_id": "a", "TS": 3}', "line 2, TS"),
        ('{"T_S": 3}', "line 2"),
        ("[1]", "line 2"),
        ('{"run_id": "b"', "line 2"),
        ('{"run_id": "z"}', "line 2"),  # labelled twice
    ],
)
def test_bad_label_names_file_line_and_field(tmp_path, line, where):
    path = _write(tmp_path, '{"run_id": "z"}', line)
    with pytest.raises(DataError) as info:
        read_labels(path)
    assert str(info.value).startswith(f"{path}, field {where}")


def test_review_ids_resolve_through_the_key(tmp_path):
    key = tmp_path / "key.json"
    key.write_text(json.dumps({"runs": {"r001": "run-1", "r002": "run-2"}}))
    path = _write(tmp_path, '{"review_id": "r002", "A": true}', '{"run_id": "run-7"}')
    labels = labels_by_run(read_labels(path), read_key(key), path)
    assert set(labels) == {"run-2", "run-7"}
    with pytest.raises(DataError, match="key file"):
        labels_by_run(read_labels(path), None, path)
    stray = _write(tmp_path, '{"review_id": "r404"}')
    with pytest.raises(DataError, match="r404"):
        labels_by_run(read_labels(stray), read_key(key), stray)

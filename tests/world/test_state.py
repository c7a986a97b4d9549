"""The copy-on-write state: τ-bench's hash, isolation, reset and change sets."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.world.hashing import data_hash
from sscbench.world.state import BaseData, WorldState

scalars = st.one_of(
    st.integers(-5, 5),
    st.text(max_size=3),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=8,
)
tables = st.dictionaries(
    st.sampled_from(["users", "orders", "flights"]),
    st.dictionaries(st.text(min_size=1, max_size=4), json_values, max_size=4),
    min_size=1,
    max_size=3,
)


@settings(max_examples=200, deadline=None)  # a loaded two-core machine: no per-example deadline
@given(tables)
def test_streamed_hash_equals_reference(data):
    assert WorldState(BaseData(data)).db_hash() == data_hash(data)


@settings(max_examples=100, deadline=None)
@given(tables, st.data())
def test_hash_after_edits_equals_reference_and_reset_restores(data, draw):
    base = BaseData(json.loads(json.dumps(data)))
    state = WorldState(base)
    table = draw.draw(st.sampled_from(sorted(data)))
    key = draw.draw(st.text(min_size=1, max_size=4))
    value = draw.draw(json_values)
    if key in data[table] and draw.draw(st.booleans()):
        state.delete(table, key)
        expected = {t: dict(r) for t, r in data.items()}
        del expected[table][key]
    else:
        state.insert(table, key, value)
        expected = {t: dict(r) for t, r in data.items()}
        expected[table][key] = value
    assert state.db_hash() == data_hash(expected)
    assert (state.changes() == {}) == (data_hash(expected) == data_hash(data))
    state.reset()
    assert state.db_hash() == data_hash(data)
    assert base.tables == data  # the base was never touched


def test_edit_copies_and_isolates_envs():
    base = BaseData({"users": {"u1": {"name": "A", "tags": ["x"]}}})
    one, two = WorldState(base), WorldState(base)
    record = one.edit("users", "u1")
    record["tags"].append("y")
    assert one.get("users", "u1")["tags"] == ["x", "y"]
    assert two.get("users", "u1")["tags"] == ["x"]
    assert base.tables["users"]["u1"]["tags"] == ["x"]
    assert list(one.changes()) == [("users", "u1")]


def test_edit_back_to_original_is_no_change():
    base = BaseData({"users": {"u1": {"n": 1}}})
    state = WorldState(base)
    state.edit("users", "u1")["n"] = 2
    state.edit("users", "u1")["n"] = 1
    assert state.changes() == {}


def test_int_and_float_differ_as_in_taubench():
    base = BaseData({"users": {"u1": {"n": 1}}})
    state = WorldState(base)
    state.edit("users", "u1")["n"] = 1.0
    assert state.changes() != {}
    assert state.db_hash() != base.initial_hash()


def test_table_view_keeps_dict_order():
    base = BaseData({"t": {"a": 1, "b": 2, "c": 3}})
    state = WorldState(base)
    state.insert("t", "z", 0)
    state.insert("t", "b", 20)
    state.delete("t", "a")
    view = state.table("t")
    assert list(view) == ["b", "c", "z"]
    assert view["b"] == 20 and "a" not in view and len(view) == 3


def test_snapshot_restore():
    base = BaseData({"t": {"a": {"v": 1}}})
    state = WorldState(base)
    state.edit("t", "a")["v"] = 2
    snap = state.snapshot()
    state.edit("t", "a")["v"] = 3
    state.restore(snap)
    assert state.get("t", "a") == {"v": 2}

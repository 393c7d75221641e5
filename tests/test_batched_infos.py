"""``batch_infos`` gives exactly what folding Gymnasium's ``_add_info`` over the same calls gives."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv
from hypothesis import given, settings
from hypothesis import strategies as st

from officegym.vector import info_fold
from officegym.vector.batched_infos import batch_infos, vector_info

NUM_ENVS = 6
KEYS = ("turn", "is_error", "reward", "grade", "final_obs", "final_info", "note", "vec")
scalars = st.one_of(
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, width=64),
    st.booleans(),
    st.text(max_size=5),
    st.none(),
    st.builds(lambda x: np.float32(x), st.floats(-1e6, 1e6, width=32)),
    st.builds(lambda x: np.arange(2, dtype=np.int16) + x, st.integers(-100, 100)),
)
infos = st.recursive(
    st.dictionaries(st.sampled_from(KEYS), scalars, max_size=4),
    lambda inner: st.dictionaries(st.sampled_from(KEYS), st.one_of(scalars, inner), max_size=4),
    max_leaves=12,
)
calls = st.lists(st.tuples(st.integers(0, NUM_ENVS - 1), infos), max_size=10)
uniform = st.lists(
    st.fixed_dictionaries({"turn": st.integers(0, 99), "is_error": st.booleans(), "reward": st.floats(-1, 1)}),
    min_size=NUM_ENVS,
    max_size=NUM_ENVS,
)


class _Gymnasium(VectorEnv[Any, Any, Any]):
    """Gymnasium's own ``_add_info``, the definition every faster path is held to."""

    def __init__(self) -> None:
        self.num_envs = NUM_ENVS
        self.closed = True  # nothing to close; keeps VectorEnv.__del__ quiet


def _fold(items: Any) -> dict[str, Any]:
    """Gymnasium's fold, one env at a time."""
    infos: dict[str, Any] = {}
    for index, info in items:
        infos = _Gymnasium()._add_info(infos, info, index)
    return infos


def _assert_identical(got: Any, want: Any) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want)
        for key in want:
            _assert_identical(got[key], want[key])
        return
    if not isinstance(want, np.ndarray):  # what the fold makes of a key that changes kind between envs
        assert repr(got) == repr(want)
        return
    assert isinstance(got, np.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype == object:
        assert [repr(x) for x in got.tolist()] == [repr(x) for x in want.tolist()]
    else:
        assert np.array_equal(got, want, equal_nan=True)


def _fold_or_error(items: Any) -> tuple[str, Any]:
    try:
        return "ok", _fold(items)
    except Exception as error:
        return "error", type(error)


@settings(max_examples=600, deadline=None)
@given(calls)
def test_any_calls_give_what_the_fold_gives(items: list[tuple[int, dict[str, Any]]]) -> None:
    """Mixed kinds, repeated envs, nested dicts, numpy values, objects: same result, or the same error."""
    want = _fold_or_error(items)
    try:
        got: tuple[str, Any] = ("ok", batch_infos(items, NUM_ENVS, _fold))
    except Exception as error:
        got = ("error", type(error))
    assert got[0] == want[0]
    if want[0] == "ok":
        _assert_identical(got[1], want[1])


flat_values = st.one_of(
    st.integers(-(2**40), 2**40), st.floats(allow_nan=False, width=64), st.booleans(), st.text(max_size=3), st.none()
)
flat_steps = st.integers(1, 4).flatmap(
    lambda n: st.lists(
        st.tuples(
            st.integers(0, NUM_ENVS - 1),
            st.fixed_dictionaries({f"k{i}": flat_values for i in range(n)}),
        ),
        min_size=1,
        max_size=NUM_ENVS + 2,
    )
)


def _never_fold(items: Any) -> dict[str, Any]:
    raise AssertionError("a steady-state step must not fall back to the fold")


@settings(max_examples=300, deadline=None)
@given(uniform)
def test_a_steady_step_takes_the_one_pass_path_and_gives_what_the_fold_gives(step: list[dict[str, Any]]) -> None:
    """The hot case (each env's info once, the same flat keys): built in one pass, never by the fold, and
    identical to the fold's result."""
    items: list[tuple[int, dict[str, Any]]] = list(enumerate(step))
    _assert_identical(batch_infos(items, NUM_ENVS, _never_fold), _fold(items))


@settings(max_examples=600, deadline=None)
@given(flat_steps)
def test_same_flat_keys_with_mixed_types_and_repeated_envs_give_what_the_fold_gives(
    items: list[tuple[int, dict[str, Any]]],
) -> None:
    """The one-pass path where it must fall back to element-wise writes: values of mixed types under a key
    (the first value's type decides the dtype) and an env reported twice (the later value wins)."""
    want = _fold_or_error(items)
    try:
        got: tuple[str, Any] = ("ok", batch_infos(items, NUM_ENVS, _never_fold))
    except AssertionError:
        raise
    except Exception as error:
        got = ("error", type(error))
    assert got[0] == want[0]
    if want[0] == "ok":
        _assert_identical(got[1], want[1])


@settings(max_examples=200, deadline=None)
@given(uniform)
def test_a_step_where_an_episode_ended_gives_what_the_fold_gives(step: list[dict[str, Any]]) -> None:
    """An env that ended and was reset in the step (nested ``final_info``): left to the fold, same result."""
    items: list[tuple[int, dict[str, Any]]] = list(enumerate(step))
    items.insert(2, (2, {"final_obs": "last words", "final_info": dict(step[2], grade={"reward": 1.0})}))
    _assert_identical(batch_infos(items, NUM_ENVS, _fold), _fold(items))


def _fast_fold_or_error(items: Any) -> tuple[str, Any]:
    try:
        return "ok", info_fold.fold(items, NUM_ENVS)
    except Exception as error:
        return "error", type(error)


@settings(max_examples=800, deadline=None)
@given(calls)
def test_the_fast_fold_gives_what_gymnasiums_fold_gives(items: list[tuple[int, dict[str, Any]]]) -> None:
    """Mixed kinds, repeated envs, nested dicts, numpy values, objects, keys that change kind between envs:
    the same result, or the same error."""
    want, got = _fold_or_error(items), _fast_fold_or_error(items)
    assert got[0] == want[0], (got, want)
    if want[0] == "ok":
        _assert_identical(got[1], want[1])


def test_the_fast_fold_on_a_finished_episode_and_a_key_that_changes_kind() -> None:
    """The cases the fold exists for: a ``final_info`` with a nested grade beside an opening's infos, and the
    same key holding a number in one env and a dict in another (Gymnasium's answer, error or not, is the rule)."""
    finished: list[tuple[int, dict[str, Any]]] = [
        (0, {"turn": 3, "is_error": False}),
        (1, {"final_obs": "bye", "final_info": {"turn": 5, "grade": {"reward": 1.0, "tool_calls": {"a": 1}}}}),
        (1, {"system_prompt": "p", "tools": [{"name": "t"}], "task_id": "x"}),
        (2, {"turn": 4, "is_error": True}),
    ]
    _assert_identical(info_fold.fold(finished, NUM_ENVS), _fold(finished))
    for changing in ([(0, {"k": 1}), (1, {"k": {"a": 2}})], [(0, {"k": {"a": 2}}), (1, {"k": 1})]):
        got, want = _fast_fold_or_error(changing), _fold_or_error(changing)
        assert got[0] == want[0]
        if want[0] == "ok":
            _assert_identical(got[1], want[1])
        else:
            assert got[1] is want[1]


def test_the_vector_info_of_a_finished_episode_step_is_gymnasiums() -> None:
    """What the batched mode returns for a step where an episode ended (the fold) and for a steady step."""
    finished: list[tuple[int, dict[str, Any]]] = [
        (0, {"turn": 3, "is_error": False}),
        (1, {"final_obs": "bye", "final_info": {"turn": 5, "grade": {"reward": 1.0}}}),
        (1, {"system_prompt": "p", "task_id": "x"}),
    ]
    steady: list[tuple[int, dict[str, Any]]] = [(i, {"turn": i, "is_error": i % 2 == 0}) for i in range(NUM_ENVS)]
    for items in (finished, steady):
        _assert_identical(vector_info(items, NUM_ENVS), _fold(items))

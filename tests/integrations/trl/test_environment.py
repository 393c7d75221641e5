"""``officegym.integrations.trl``: the generated environment class, played by scripts, and its dataset.

Every registered env id is covered, plus the tests' example domain (registered only here), which shows that a
domain nobody wrote TRL code for trains as it is.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

import gymnasium as gym
import pytest
from transformers.utils.chat_template_utils import get_json_schema

import officegym
from officegym.integrations.trl import OMITTED, OfficeGymEnvironment, environment_factory, make_dataset, tool_method
from officegym.tests.example_domain import EXAMPLE_ID, register_example

register_example()

ENV_IDS = (*officegym.ENV_IDS, EXAMPLE_ID)
TASKS_PER_ENV = 4
UNSAID = ("maxLength", "minLength", "minimum", "maximum", "maxItems", "additionalProperties")
"""Schema keywords a Python type hint cannot carry (the env still enforces them)."""


def trl_tools(instance: OfficeGymEnvironment) -> dict[str, Any]:
    """The methods TRL 1.16 exposes as tools, found as ``GRPOTrainer`` finds them: every public function of the
    class but ``reset`` and ``get_reward``, bound to the instance."""
    return {
        name: getattr(instance, name)
        for name, _ in inspect.getmembers(type(instance), predicate=inspect.isfunction)
        if name not in ("reset", "get_reward") and not name.startswith("_")
    }


def spread(task_ids: list[str], count: int) -> list[str]:
    return task_ids[:: max(1, len(task_ids) // count)][:count]


def without_unsaid(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: without_unsaid(v) for k, v in schema.items() if k not in UNSAID}
    return schema


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_scripted_policy_on_the_gold_path_gets_full_marks(env_id: str) -> None:
    """One instance plays several tasks in a row (TRL reuses pooled instances): each row's reset, the gold path
    through the generated methods, then ``get_reward``."""
    dataset = make_dataset(env_id, "test")
    instance = environment_factory(env_id)()
    gold: Any = instance.env.unwrapped
    rows = {row["task_id"]: row for row in dataset}
    for task_id in spread(list(rows), TASKS_PER_ENV):
        instance.reset(**rows[task_id])
        tools = trl_tools(instance)
        for action in gold.gold_actions(task_id):
            observation = tools[action["name"]](**action["arguments"])
            assert isinstance(observation, str) and not observation.startswith("Error")
        assert instance.get_reward() == 1.0
        assert instance.get_reward() == 1.0  # asking twice does not play on
        assert instance.grade is not None and instance.grade["reward"] == 1.0


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_methods_are_the_env_tools_as_transformers_reads_them(env_id: str) -> None:
    """``get_json_schema`` (what ``apply_chat_template`` runs on each method) gives back each tool's name,
    description, parameter types, enums, descriptions and required list."""
    instance = environment_factory(env_id)()
    inner: Any = instance.env.unwrapped
    schemas = inner.tool_schemas
    tools = trl_tools(instance)
    assert list(tools) == sorted(s["function"]["name"] for s in schemas)
    for schema in schemas:
        expected = without_unsaid(schema["function"])
        got = get_json_schema(tools[expected["name"]])["function"]
        assert got.pop("return") == {"type": "string"}
        got["parameters"].setdefault("required", [])
        assert got == expected


def test_make_dataset_rows_hold_what_the_env_shows_at_reset() -> None:
    dataset = make_dataset("officegym/InvoiceApproval-v0", "test", tier="batch", environment="invoices")
    env = gym.make("officegym/InvoiceApproval-v0", tier="batch")
    inner: Any = env.unwrapped
    task_ids = inner.task_ids
    assert dataset.column_names == [
        "env_id",
        "env_kwargs",
        "task_id",
        "tier",
        "split",
        "source",
        "prompt",
        "environment",
    ]
    assert dataset["task_id"] == task_ids and set(dataset["tier"]) == {"batch"}
    row = dataset[3]
    opening, info = env.reset(options={"task_id": row["task_id"]})
    assert row["prompt"] == [
        {"role": "system", "content": info["system_prompt"]},
        {"role": "user", "content": opening},
    ]
    assert row["environment"] == "invoices"


def test_datasets_of_several_envs_concatenate_for_a_dict_factory() -> None:
    """``GRPOTrainer(environment_factory={"invoices": ..., "vendors": ...})`` routes rows by ``environment``;
    every registered env's dataset shares the same features, so they concatenate."""
    from datasets import concatenate_datasets

    parts = [make_dataset(env_id, "test", environment=env_id.split("/")[1]) for env_id in officegym.ENV_IDS]
    both = concatenate_datasets(parts)
    assert len(both) == sum(len(part) for part in parts)
    assert set(both["environment"]) == {env_id.split("/")[1] for env_id in officegym.ENV_IDS}


def test_the_same_arguments_give_the_same_class_and_kwargs_reach_the_env() -> None:
    cls = environment_factory("officegym/VendorReview-v0", tier="hard", max_turns=3)
    assert cls is environment_factory("officegym/VendorReview-v0", max_turns=3, tier="hard")
    assert cls is not environment_factory("officegym/VendorReview-v0")
    assert cls.__name__ == "VendorReview_v0" and issubclass(cls, OfficeGymEnvironment)
    instance = cls()
    with pytest.raises(ValueError, match="unknown task_id"):
        instance.reset(task_id="vr-easy-01")  # not among the hard tasks this env selects
    instance.reset(task_id="vr-hard-01")
    for _ in range(3):
        instance.search_docs(query="offline")  # type: ignore[attr-defined]
    assert instance.grade is not None and instance.grade["turns"] == 3  # max_turns ended and graded it
    with pytest.raises(ValueError, match="episode is over"):
        instance.search_docs(query="offline")  # type: ignore[attr-defined]


def test_a_rollout_without_a_decision_is_graded_as_it_stands() -> None:
    instance = environment_factory("officegym/InvoiceApproval-v0")()
    instance.reset(task_id="single-1", prompt=[], tier="single")
    assert instance.whoami().startswith("{")  # type: ignore[attr-defined]
    assert instance.grade is None
    assert instance.get_reward() == 0.0
    assert instance.grade is not None and instance.grade["turns"] == 2  # whoami, then finish


def test_calls_go_to_the_env_as_given_and_refusals_are_observations() -> None:
    instance = environment_factory("officegym/InvoiceApproval-v0")()
    instance.reset(task_id="single-1")
    listing = instance.list_invoices(status="received")  # type: ignore[attr-defined]
    assert '"total"' in listing  # the optional supplier_id and limit were left to the env's defaults
    refused = instance.get_invoice(invoice_id="ER-0000-00000", extra=1)  # type: ignore[attr-defined]
    assert refused.startswith("Error")
    with pytest.raises(TypeError):
        instance.get_invoice("ER-2026-00190")  # type: ignore[attr-defined]
    assert instance.get_reward() == 0.0
    assert instance.grade is not None and instance.grade["invalid_calls"] == 1


def test_misuse_says_what_to_do() -> None:
    cls = environment_factory("officegym/VendorReview-v0")
    instance = cls()
    with pytest.raises(RuntimeError, match="before reset"):
        instance.read_doc(doc_id="x")  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError, match="before reset"):
        instance.get_reward()
    with pytest.raises(ValueError, match="task_id"):
        instance.reset(prompt=[])
    with pytest.raises(TypeError, match="environment_factory"):
        OfficeGymEnvironment()


def test_tool_method_keeps_what_transformers_would_misread() -> None:
    """``@tool`` appends a ``Returns:`` section to a description; transformers' docstring parser would cut the
    description there, so the colon goes. Optional parameters default to a marker that is never sent."""
    method = tool_method(
        {
            "name": "lookup",
            "description": "Look something up.\n\nReturns: the record, as JSON.",
            "parameters": {
                "type": "object",
                "properties": {
                    "key": {"type": "string", "description": "What to look up."},
                    "ids": {"type": "array", "items": {"type": "integer", "enum": [1, 2]}, "description": "Ids."},
                    "flag": {"type": "boolean", "description": "Args: a flag."},
                },
                "required": ["key"],
            },
        }
    )
    schema = get_json_schema(method)["function"]
    assert schema["description"] == "Look something up.\n\nReturns the record, as JSON."
    assert schema["parameters"] == {
        "type": "object",
        "properties": {
            "key": {"type": "string", "description": "What to look up."},
            "ids": {"type": "array", "items": {"type": "integer", "enum": [1, 2]}, "description": "Ids."},
            "flag": {"type": "boolean", "description": "Args a flag."},
        },
        "required": ["key"],
    }
    assert inspect.signature(method).parameters["flag"].default is OMITTED
    for name in ("reset", "get_reward", "grade", "_hidden", "not-an-identifier"):
        with pytest.raises(ValueError, match="cannot be a TRL environment method"):
            tool_method({"name": name, "description": "x"})


def test_make_dataset_names_the_extra_when_datasets_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(ImportError, match=r"pip install 'officegym\[trl\]'"):
        make_dataset("officegym/VendorReview-v0")

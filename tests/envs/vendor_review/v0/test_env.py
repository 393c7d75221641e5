"""VendorReview-v0: the Gymnasium contract, every tool's bad input, search, grading and the baselines."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from officegym.envs.vendor_review.shared.authoring.validate import normalize
from officegym.envs.vendor_review.shared.baselines import lazy_path, paranoid_path
from officegym.envs.vendor_review.v0.env import VendorReviewEnv
from officegym.envs.vendor_review.v0.grading import gap_score
from officegym.envs.vendor_review.v0.rules import derive_decision
from officegym.envs.vendor_review.v0.tasks import scenarios
from officegym.policies import RandomPolicy, run_episode
from officegym.policies.registry import make_policy

ENV_ID = "officegym/VendorReview-v0"
SCENARIOS = scenarios()
FINISH = {"name": "finish", "arguments": {}}


def submit(decision: str, gap_ids: list[str], rationale: str = "because") -> dict[str, Any]:
    return {
        "name": "submit_recommendation",
        "arguments": {"decision": decision, "gap_ids": gap_ids, "rationale": rationale},
    }


@pytest.fixture()
def env() -> Any:
    environment = gym.make(ENV_ID)
    environment.reset(seed=0, options={"task_id": "vr-hard-01"})
    yield environment
    environment.close()


def test_check_env_and_fresh_process_make() -> None:
    env = gym.make(ENV_ID, disable_env_checker=True)
    check_env(env.unwrapped, skip_render_check=False)


def test_reset_lists_the_documents_and_tools(env: Any) -> None:
    observation, info = env.reset(seed=0, options={"task_id": "vr-easy-01"})
    scenario = SCENARIOS["vr-easy-01"]
    assert observation.startswith(scenario.request)
    assert all(f"- {d.id}: " in observation for d in scenario.documents)
    assert [t["function"]["name"] for t in info["tools"]] == [
        "search_docs",
        "read_doc",
        "ask_it_channel",
        "submit_recommendation",
    ]
    assert "conditional-go" in info["system_prompt"] and info["tier"] == "easy"


@pytest.mark.parametrize("scenario_id", sorted(SCENARIOS))
def test_oracle_scores_one_and_each_mistake_costs(scenario_id: str) -> None:
    env = gym.make(ENV_ID)
    inner: Any = env.unwrapped
    scenario = SCENARIOS[scenario_id]
    assert run_episode(env, make_policy("oracle", env), task_id=scenario_id).reward == 1.0
    env.reset(options={"task_id": scenario_id})
    *_, info = env.step(submit(scenario.decision, list(scenario.gap_ids)))
    assert info["grade"]["reward"] == pytest.approx(0.9)  # nothing read: the process component is lost
    wrong = next(d for d in ("go", "no-go", "conditional-go") if d != scenario.decision)
    path = inner.gold_actions(scenario_id)
    path[-1]["arguments"]["decision"] = wrong
    env.reset(options={"task_id": scenario_id})
    for action in path:
        *_, info = env.step(action)
    assert info["grade"]["reward"] == pytest.approx(0.8) and info["grade"]["reward_decision"] == 0.0


def test_gap_score_formula() -> None:
    assert gap_score({"A", "B"}, {"A", "B"}) == (1.0, 2, 0, 0)
    assert gap_score({"A", "X"}, {"A", "B"}) == (0.25, 1, 1, 1)
    assert gap_score({"X", "Y", "Z"}, {"A"}) == (0.0, 0, 1, 3)
    assert gap_score(set(), set()) == (1.0, 0, 0, 0)
    assert gap_score({"X"}, set()) == (0.5, 0, 0, 1)
    assert gap_score({"X", "Y", "Z"}, set()) == (0.0, 0, 0, 3)


def test_no_submission_scores_zero(env: Any) -> None:
    env.step({"name": "read_doc", "arguments": {"doc_id": "requirements-matrix"}})
    *_, info = env.step(FINISH)
    assert info["grade"]["reward"] == 0.0 and info["grade"]["submitted"] is False
    truncated_env = gym.make(ENV_ID, max_turns=2)
    truncated_env.reset(options={"task_id": "vr-easy-01"})
    truncated_env.step({"name": "search_docs", "arguments": {"query": "scim"}})
    _, reward, terminated, truncated, info = truncated_env.step({"name": "search_docs", "arguments": {"query": "x"}})
    assert (reward, terminated, truncated, info["grade"]["submitted"]) == (0.0, False, True, False)


def _state(env: Any) -> tuple[Any, ...]:
    ctx = env.unwrapped.episode
    return (list(ctx.docs_read), ctx.searches, ctx.questions, ctx.submission)


BAD_CALLS: list[tuple[str, Any, str]] = [
    ("unknown tool", {"name": "approve_vendor", "arguments": {}}, "unknown tool"),
    ("malformed json", '{"name": "read_doc", "arguments": {"doc_id": ', "not valid JSON"),
    ("search: empty", {"name": "search_docs", "arguments": {"query": "   "}}, "query is empty"),
    ("search: missing", {"name": "search_docs", "arguments": {}}, "missing required"),
    ("search: int", {"name": "search_docs", "arguments": {"query": 5}}, "must be a string"),
    ("search: huge", {"name": "search_docs", "arguments": {"query": "q" * 1_000_000}}, "at most 300"),
    ("read: unknown doc", {"name": "read_doc", "arguments": {"doc_id": "dpa-2019"}}, "no document"),
    ("read: extra arg", {"name": "read_doc", "arguments": {"doc_id": "questionnaire", "page": 2}}, "unexpected"),
    ("ask: empty", {"name": "ask_it_channel", "arguments": {"question": ""}}, "question is empty"),
    ("ask: list", {"name": "ask_it_channel", "arguments": {"question": ["a"]}}, "must be a string"),
    ("submit: bad decision", submit("maybe", []), "must be one of"),
    ("submit: unknown id", submit("no-go", ["REQ-NOPE"]), "not requirements of this deal"),
    ("submit: id not in matrix", submit("no-go", ["REQ-EXPORT"]), "not requirements of this deal"),
    ("submit: duplicate id", submit("no-go", ["REQ-OFFLINE", "REQ-OFFLINE"]), "twice"),
    (
        "submit: ids not a list",
        {"name": "submit_recommendation", "arguments": {"decision": "go", "gap_ids": "REQ-OFFLINE", "rationale": "x"}},
        "must be a list",
    ),
    ("submit: int id", submit("no-go", [7]), "must be a string"),  # type: ignore[list-item]
    ("submit: empty rationale", submit("go", [], " "), "rationale is empty"),
    (
        "submit: missing rationale",
        {"name": "submit_recommendation", "arguments": {"decision": "go", "gap_ids": []}},
        "missing required",
    ),
    ("submit: too many ids", submit("no-go", ["REQ-SSO"] * 31), "at most 30"),
]


@pytest.mark.parametrize("label, action, message", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_call_is_an_error_and_changes_nothing(env: Any, label: str, action: Any, message: str) -> None:
    before = _state(env)
    observation, reward, terminated, truncated, _info = env.step(action)
    assert observation.startswith("Error: ") and message in observation, observation
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert _state(env) == before


def test_the_review_goes_on_after_a_malformed_submission(env: Any) -> None:
    env.step(submit("maybe", []))
    _, _reward, terminated, _, info = env.step(submit("no-go", ["REQ-OFFLINE", "REQ-RESIDENCY"]))
    assert terminated and info["grade"]["hits"] == 2 and info["grade"]["invalid_calls"] == 1


def test_search_is_ranked_and_deterministic(env: Any) -> None:
    first = json.loads(env.step({"name": "search_docs", "arguments": {"query": "offline cache days"}})[0])
    again = json.loads(env.step({"name": "search_docs", "arguments": {"query": "offline cache days"}})[0])
    assert first == again and 1 <= len(first["results"]) <= 5
    keys = [(-r["matched_terms"], -r["occurrences"]) for r in first["results"]]
    assert keys == sorted(keys)
    assert all("offline" in r["snippet"].lower() or "cache" in r["snippet"].lower() for r in first["results"][:1])
    nothing = json.loads(env.step({"name": "search_docs", "arguments": {"query": "zyxwvut"}})[0])
    assert nothing["results"] == []


def test_it_channel_routes_deterministically(env: Any) -> None:
    a = env.step({"name": "ask_it_channel", "arguments": {"question": "How long are crossings offline?"}})[0]
    b = env.step({"name": "ask_it_channel", "arguments": {"question": "HOW LONG ARE CROSSINGS OFFLINE?"}})[0]
    assert a == b and not a.startswith("Error")


@pytest.mark.parametrize("scenario_id", sorted(SCENARIOS))
def test_evidence_is_in_the_documents_and_not_in_the_it_channel(scenario_id: str) -> None:
    scenario = SCENARIOS[scenario_id]
    documents = normalize(" ".join(d.text for d in scenario.documents))
    replies = normalize(" ".join([scenario.it_channel.default_reply, *(r.reply for r in scenario.it_channel.routes)]))
    for finding in (*scenario.planted_gaps, *scenario.distractors):
        for phrase in finding.evidence:
            assert normalize(phrase) in documents, (scenario_id, finding.id, phrase)
            assert normalize(phrase) not in replies, (scenario_id, finding.id, phrase)
    assert derive_decision(scenario) == scenario.decision


def test_baselines_in_order() -> None:
    env = gym.make(ENV_ID)
    means = {}
    for name in ("oracle", "paranoid", "lazy"):
        results = [run_episode(env, make_policy(name, env), task_id=s) for s in sorted(SCENARIOS)]
        means[name] = sum(r.reward for r in results) / len(results)
    assert means["oracle"] == 1.0
    assert means["oracle"] > means["paranoid"] > means["lazy"]
    # With 2 distractors beside 2 gaps in most deals, over-flagging costs half the gap reward there: ~0.6.
    assert 0.55 <= means["paranoid"] <= 0.75, means
    assert means["lazy"] <= 0.2, means


def test_paranoid_and_lazy_paths_are_well_formed() -> None:
    for scenario in SCENARIOS.values():
        assert paranoid_path(scenario)[-1]["name"] == "submit_recommendation"
        assert lazy_path(scenario)[-1]["arguments"] == {
            "decision": "go",
            "gap_ids": [],
            "rationale": "The matrix looks standard.",
        }


@pytest.mark.parametrize("mode, kwargs", [("sync", {}), ("async", {"shared_memory": False})])
def test_vector_envs(mode: str, kwargs: dict[str, Any]) -> None:
    envs = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode=mode, vector_kwargs=kwargs)
    observations, _ = envs.reset(seed=0, options={"task_id": "vr-easy-01"})
    assert all("Documents in this deal file" in o for o in observations)
    action = submit("go", [])
    _, _rewards, terminated, _, infos = envs.step((action, action))
    assert terminated.all() and list(infos["grade"]["submitted"]) == [True, True]
    envs.close()


def test_rendering(capsys: Any) -> None:
    ansi = gym.make(ENV_ID, render_mode="ansi", task_ids=["vr-easy-01"])
    ansi.reset(seed=0)
    ansi.step({"name": "read_doc", "arguments": {"doc_id": "requirements-matrix"}})
    ansi.step(submit("go", []))
    text = str(ansi.render())
    assert "read_doc" in text and "reward_gaps" in text
    human = gym.make(ENV_ID, render_mode="human", task_ids=["vr-easy-01"])
    human.reset(seed=0)
    human.step(submit("go", []))
    assert "submit_recommendation" in capsys.readouterr().out


def test_random_policy_never_crashes() -> None:
    env = gym.make(ENV_ID)
    for seed in range(20):
        result = run_episode(env, RandomPolicy(seed, id_patterns=VendorReviewEnv.ID_PATTERNS), seed=seed)
        assert 0.0 <= result.reward <= 1.0


@pytest.mark.parametrize(
    "kwargs, message", [({"task_ids": ["vr-easy-99"]}, "unknown scenario"), ({"tier": "single"}, "unknown tier")]
)
def test_constructor_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        VendorReviewEnv(**kwargs)

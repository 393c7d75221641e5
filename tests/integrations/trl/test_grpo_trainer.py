"""A real ``trl.GRPOTrainer`` trains for two steps on train rows of an officegym env through
``environment_factory``, on CPU, logging the grade's components and the reward per task source.

Nothing is downloaded. The model is a randomly initialised two-layer Qwen2 (hidden size 32) and its tokenizer a
byte-level BPE trained here in well under a second on officegym's own text (system prompts, tool schemas,
openings), wrapped as a ``PreTrainedTokenizerFast`` with TRL's copy of the Qwen2.5 chat template (TRL
recognises it, so it knows how to parse the model's tool calls).

A random model never writes a tool call by chance, so generation is steered with logit biases (transformers'
``sequence_bias``): open a call, then write one of two scripted calls token by token (submit ``go`` or
``no-go``: the branch is sampled, so rollouts of one prompt differ and GRPO has an advantage to learn from),
and end the turn after a tool result. Everything after the model's tokens is TRL's own loop: parsing the call,
running it on a pooled env instance, feeding the result back, ``get_reward`` and the policy update.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
import torch
import trl
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM
from trl.trainer.grpo_config import GRPOConfig
from trl.trainer.grpo_trainer import GRPOTrainer

import officegym
from officegym.integrations.trl import (
    OfficeGymEnvironment,
    environment_factory,
    grade_metrics,
    make_dataset,
    source_rewards,
)

ENV_ID = "officegym/VendorReview-v2"
CHAT_TEMPLATE = Path(trl.__file__).parent / "chat_templates" / "qwen2_5.jinja"
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
MARKUP = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]
CALLS = [
    {"name": "submit_recommendation", "arguments": {"decision": decision, "gap_ids": [], "rationale": "Read it."}}
    for decision in ("go", "no-go")
]
OPEN, FOLLOW = 10.0, 25.0
STEPS, ROLLOUTS = 2, 4
TokenizerFast: Any = PreTrainedTokenizerFast  # transformers leaves its __init__ unannotated


def officegym_text() -> Iterator[str]:
    """What the tokenizer learns from: every env's system prompt, tool schemas and task openings."""
    for env_id in officegym.ENV_IDS:
        env = gym.make(env_id)
        inner: Any = env.unwrapped
        yield json.dumps(inner.tool_schemas)
        for task_id in inner.task_ids:
            opening, info = env.reset(options={"task_id": task_id})
            yield opening
            yield info["system_prompt"]
        env.close()


def tiny_tokenizer() -> Any:
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    learner = trainers.BpeTrainer(
        vocab_size=2000,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(officegym_text(), learner)
    tokenizer = TokenizerFast(
        tokenizer_object=bpe,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        chat_template=CHAT_TEMPLATE.read_text(encoding="utf-8"),
    )
    tokenizer.add_tokens(MARKUP)  # not special: decoding keeps them, so TRL can parse the calls
    return tokenizer


def tiny_model(tokenizer: Any) -> Qwen2ForCausalLM:
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return Qwen2ForCausalLM(config)


def steering(tokenizer: Any) -> dict[tuple[int, ...], float]:
    """``sequence_bias`` entries: the opening ``<tool_call>`` anywhere, each next token of a scripted call
    after its prefix (strong enough to beat the opening bias), and end-of-turn right after a tool result."""
    bias: dict[tuple[int, ...], float] = {}
    for call in CALLS:
        text = f"<tool_call>\n{json.dumps(call)}\n</tool_call><|im_end|>"
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        bias.update({tuple(ids[: k + 1]): FOLLOW for k in range(1, len(ids))})
        bias[(ids[0],)] = OPEN
    after_result = tokenizer("</tool_response><|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    bias[(*after_result["input_ids"], tokenizer.eos_token_id)] = FOLLOW
    return bias


class Pool:
    """The factory TRL calls, counting what it makes and how often each instance starts an episode."""

    def __init__(self) -> None:
        base = environment_factory(ENV_ID)
        self.resets = 0

        class Counted(base):  # type: ignore[valid-type,misc]
            def reset(env, **row: Any) -> None:  # ``self`` is the pool
                self.resets += 1
                super().reset(**row)

        Counted.__name__ = base.__name__
        self.cls: type[OfficeGymEnvironment] = Counted
        self.made: list[OfficeGymEnvironment] = []

    def __call__(self) -> OfficeGymEnvironment:
        self.made.append(self.cls())
        return self.made[-1]


def train_rows() -> Any:
    """Two train rows (generated deals, never a test deal): a go and a no-go deal, so the two scripted calls
    score apart and GRPO has an advantage to learn from."""
    dataset = make_dataset(ENV_ID, "train", sources=1)
    gold: Any = gym.make(ENV_ID, split="train", first_seed=0, deals=200).unwrapped
    decision = {row: gold.gold_actions(row)[-1]["arguments"]["decision"] for row in dataset["task_id"][:40]}
    picks = [next(k for k, t in enumerate(dataset["task_id"]) if decision.get(t) == d) for d in ("go", "no-go")]
    assert set(dataset["split"]) == {"train"}
    return dataset.select(picks)


def test_grpo_trains_on_an_officegym_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    tokenizer = tiny_tokenizer()
    model = tiny_model(tokenizer)
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    pool = Pool()
    dataset = train_rows()
    metrics: list[Any] = [*grade_metrics(ENV_ID), *source_rewards(dataset)]
    args = GRPOConfig(
        output_dir=str(tmp_path),
        reward_weights=[0.0] * len(metrics),
        max_steps=STEPS,
        per_device_train_batch_size=ROLLOUTS,
        num_generations=ROLLOUTS,
        max_completion_length=160,
        max_tool_calling_iterations=3,
        learning_rate=1e-2,
        generation_kwargs={"sequence_bias": steering(tokenizer)},
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        use_cpu=True,
        bf16=False,
        activation_checkpointing=False,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        args=args,
        reward_funcs=metrics,
        train_dataset=dataset,
        processing_class=tokenizer,
        environment_factory=pool,
    )
    assert sorted(tool.__name__ for tool in trainer.tools) == sorted(pool.cls.tool_names)

    trainer.train()

    assert trainer.state.global_step == STEPS
    logs = [log for log in trainer.state.log_history if "rewards/VendorReview_v2/mean" in log]
    assert len(logs) == STEPS
    assert all(log["tools/call_frequency"] == 1.0 and log["tools/failure_frequency"] == 0.0 for log in logs)
    assert len(pool.made) == ROLLOUTS and pool.resets == STEPS * ROLLOUTS  # pooled, reset for each rollout
    assert all(env.grade is not None and env.grade["submitted"] for env in pool.made)  # the model's calls ran
    rewards = [env.get_reward() for env in pool.made]  # the last step's episodes, already graded
    assert logs[-1]["rewards/VendorReview_v2/mean"] == pytest.approx(sum(rewards) / ROLLOUTS)
    assert all(env.source == "deals 0-199" and env.task_id in dataset["task_id"] for env in pool.made)
    # the grade's components and the per-source reward are logged beside the reward, with weight 0
    assert logs[-1]["rewards/grade_reward/mean"] == pytest.approx(logs[-1]["rewards/VendorReview_v2/mean"])
    assert logs[-1]["rewards/reward_deals_0_199/mean"] == pytest.approx(logs[-1]["rewards/VendorReview_v2/mean"])
    decisions = [env.grade["reward_decision"] for env in pool.made if env.grade is not None]
    assert logs[-1]["rewards/grade_reward_decision/mean"] == pytest.approx(sum(decisions) / ROLLOUTS)
    assert logs[-1]["reward"] == pytest.approx(logs[-1]["rewards/VendorReview_v2/mean"])  # metrics weigh 0
    assert any(not torch.equal(before[name], p) for name, p in model.named_parameters())  # a real update

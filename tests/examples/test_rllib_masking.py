"""The RLlib example's own masking module: masked actions get probability 0, values come out one per row, and a
wrong observation space is refused naming the wrapper. Needs RLlib and torch (the RLlib venv of ``make test``);
``tests/evaluation/test_ray_backend.py`` trains the example end to end."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from gymnasium import spaces  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402

from officegym.examples.rllib_masking import MaskedPPOModule  # noqa: E402
from officegym.examples.rllib_ppo import make_env  # noqa: E402


def build(observation_space: spaces.Space[Any], action_space: spaces.Space[Any]) -> Any:
    spec = RLModuleSpec(
        module_class=MaskedPPOModule,
        observation_space=observation_space,
        action_space=action_space,
        model_config={"fcnet_hiddens": [32, 32]},
    )
    return spec.build()


def observations(count: int) -> tuple[Any, dict[str, Any]]:
    """A module for the example's env and a batch of ``count`` real masked observations from seeded resets."""
    env = make_env({"tier": "single", "max_turns": 20, "mask": True})
    rows = [env.reset(seed=seed)[0] for seed in range(count)]
    batch = {key: torch.as_tensor(np.stack([row[key] for row in rows])) for key in ("action_mask", "observations")}
    module = build(env.observation_space, env.action_space)
    env.close()
    return module, {Columns.OBS: batch}


def test_masked_actions_get_no_probability_and_are_never_sampled() -> None:
    torch.manual_seed(0)
    module, batch = observations(4)
    mask = batch[Columns.OBS]["action_mask"]
    assert 0 < int(mask.sum()) < mask.numel()  # the adapter masks some actions, not all
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        with torch.no_grad():
            logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        distribution = module.get_train_action_dist_cls().from_logits(logits)
        probabilities = torch.softmax(logits, dim=-1)
        assert float(probabilities[mask == 0].sum()) == 0.0
        assert torch.isfinite(logits).all() and torch.isfinite(distribution.entropy()).all()
        drawn = distribution.sample(sample_shape=(500,))
        assert bool(torch.gather(mask.expand(500, -1, -1), 2, drawn.unsqueeze(-1)).all())


def test_values_are_one_per_row_and_reuse_the_training_pass() -> None:
    module, batch = observations(3)
    out = module.forward_train(batch)
    values = module.compute_values(batch)
    assert values.shape == (3,)
    assert torch.allclose(module.compute_values(batch, embeddings=out[Columns.EMBEDDINGS]), values)


def test_an_observation_without_the_mask_is_refused_naming_the_wrapper() -> None:
    with pytest.raises(ValueError, match="MaskInObservation"):
        build(spaces.Box(0.0, 1.0, (8,), np.float32), spaces.Discrete(4))

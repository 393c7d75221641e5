"""A v0 seed whose generated plan needs more purchase orders than the company holds is an unusable company, not
a crash: the train seed search skips it, and a user asking for it is told to pick another seed.

Seed 100052 is the first train seed (from ``TRAIN_SEED_START``) whose plan overflows (152 POs for 150 places);
before, its bare ``RuntimeError`` escaped the seed search, so every train split that reached it crashed.
"""

from __future__ import annotations

import pytest

from officegym.envs.invoice_approval.shared.db import CANONICAL_SEED
from officegym.envs.invoice_approval.shared.splits import qualifying_seeds
from officegym.envs.invoice_approval.v0.authoring.world import UnbuildablePlan, generate_world
from officegym.envs.invoice_approval.v0.bundle import Bundle, UnusableCompany, load_bundle

OVERFLOWING = (100052, 100053)
"""Two consecutive train seeds whose plans overflow."""


def test_the_generator_names_the_overflow() -> None:
    with pytest.raises(UnbuildablePlan, match=r"^the plan needs 152 POs, more than 150$"):
        generate_world(OVERFLOWING[0], 1)


@pytest.mark.parametrize("seed", OVERFLOWING)
def test_an_overflowing_seed_is_an_unusable_company(seed: int) -> None:
    with pytest.raises(
        UnusableCompany, match=rf"^company_seed={seed} generates .*the plan needs 15\d POs.*another seed"
    ):
        load_bundle(seed)


def test_the_seed_search_skips_an_overflowing_seed() -> None:
    """The search from the first overflowing seed goes on past both; its first pick is a company it can load."""
    tried: list[int] = []

    def load(seed: int) -> Bundle:
        tried.append(seed)
        return load_bundle(seed)

    found = qualifying_seeds(load, OVERFLOWING[0], 1, UnusableCompany)
    assert tried[:3] == [CANONICAL_SEED, *OVERFLOWING]
    assert found == [tried[-1]]
    assert found[0] > OVERFLOWING[-1]

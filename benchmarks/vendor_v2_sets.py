"""VendorReview-v2's set-level numbers, as the README quotes them: every surface feature's tell on training,
generated test and hand-written deals, how often a large training set repeats an evidence line, deal lengths and
decision shares.

``python -m benchmarks.vendor_v2_sets [--train N] [--repeat-deals N] [--out PATH]`` (defaults 1,000, 10,000 and
``benchmarks/results/vendor_v2_sets.json``). Deterministic: every deal comes from its seed.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import mean
from typing import Any

from officegym.envs.vendor_review.shared.scenario import scenario_from_dict, split_record
from officegym.envs.vendor_review.v2.authoring.set_checks import decision_shares, tells
from officegym.envs.vendor_review.v2.deals import TEST_SEEDS, generate_record, handwritten_records

OUT = Path(__file__).parent / "results" / "vendor_v2_sets.json"


def repetition(deals: int) -> dict[str, float]:
    """Evidence lines (value statements and promises of the answer key) over ``deals`` training deals: how many,
    the share that occurs more than once, and the most any one occurs."""
    lines: Counter[str] = Counter()
    for seed in range(deals):
        record = generate_record(seed)
        for finding in [*record["planted_gaps"], *record["distractors"]]:
            lines.update(finding["evidence"])
    total = sum(lines.values())
    repeated = sum(n for n in lines.values() if n > 1)
    return {"deals": deals, "lines": total, "repeated_share": round(repeated / total, 4), "most": max(lines.values())}


def lengths(records: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Total document words by matrix size: mean, min, max."""
    by_rows: dict[int, list[int]] = {}
    for record in records:
        scenario = scenario_from_dict(split_record(record)[0])
        by_rows.setdefault(len(scenario.requirements), []).append(scenario.total_words)
    return {str(rows): {"deals": len(w), "mean": round(mean(w)), "min": min(w), "max": max(w)}
            for rows, w in sorted(by_rows.items())}  # fmt: skip


def measure(train: int, repeat_deals: int) -> dict[str, Any]:
    sets = {
        "train": [generate_record(seed) for seed in range(train)],
        "test_generated": [generate_record(seed) for seed in TEST_SEEDS],
        "test_handwritten": list(handwritten_records().values()),
    }
    return {
        "tells": {name: tells(records) for name, records in sets.items()},
        "decision_shares": {name: decision_shares(records) for name, records in sets.items()},
        "words": {name: lengths(records) for name, records in sets.items()},
        "repetition": repetition(repeat_deals),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--train", type=int, default=1000)
    parser.add_argument("--repeat-deals", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    result = measure(args.train, args.repeat_deals)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(result["tells"], indent=1, sort_keys=True))
    print(json.dumps(result["repetition"], sort_keys=True))


if __name__ == "__main__":
    main()

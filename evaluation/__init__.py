"""Running and auditing evaluations: episodes in parallel, results as JSONL, summaries, replay."""

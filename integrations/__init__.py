"""Bridges from officegym envs to other agent frameworks; each needs its own extra (see README)."""

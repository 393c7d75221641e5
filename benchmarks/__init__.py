"""Benchmarks: ``make bench`` (``python -m benchmarks.run``) measures and writes ``benchmarks/results/``."""

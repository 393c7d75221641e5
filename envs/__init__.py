"""officegym environments: ``core/`` (what every domain shares) and one folder per domain (see README.md)."""

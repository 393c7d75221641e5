"""VendorReview: a procurement analyst audits a SaaS vendor's documents against the buyer's requirements matrix.

Runtime: ``env.py`` (the Gymnasium face), ``episode.py``, ``tools.py``, ``rules.py`` (the decision rule),
``scenario.py`` (the typed deal), ``tasks.py`` (the shipped deals), ``search.py``, ``grading.py``,
``progress.py``, ``catalogue.py``, ``baselines.py``. Offline: ``authoring/`` (validator, set checks, README
table). ``envs/README.md`` explains the roles.
"""

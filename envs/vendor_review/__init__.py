"""VendorReview: a procurement analyst audits a SaaS vendor's documents against the buyer's requirements matrix.

One folder per version (``v0/``, ``v1/``, ``v2/``), each with the same file names for the same roles (``env.py``,
``tools.py``, ``rules.py``, ``tasks.py``, ``grading.py``, ``catalogue.py``, ``baselines.py``, ``authoring/``),
over ``shared/``, the code the versions share (the typed deal, search, episode, tool bodies, decision rule,
grader, progress, catalogue and scripted paths, and the validator's checks in ``shared/authoring/``). ``env.py``
here only keeps the entry point ``officegym.envs.vendor_review.env:VendorReviewEnv`` of the time before versions
were siblings. ``envs/README.md`` explains the roles.
"""

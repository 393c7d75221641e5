"""VendorReview-v1: larger deals (about 14 requirements, 0-5 gaps), a seeded deal generator for training and
hand-written test deals.

The runtime reuses the shared tools, episode, search, grading and catalogue (``../shared``) unchanged: v1's
``rules.py``, ``grading.py`` and ``catalogue.py`` only say so. What is new is the deal supply. ``library.py``
types the editable evidence library in ``assets/vendor_review/v1``, ``plan.py`` draws a deal's choices from a
seed, ``compose.py`` and ``thread.py`` write its documents, ``deals.py`` serves the hand-written and generated
deals by task id (``tasks.py`` names that role), ``tools.py`` holds v1's submit tool, ``env.py`` is the Gymnasium
face (the shared ``DealEnv`` with v1's docstring, demo and policies) and ``baselines.py`` holds the cheap
policies the issue measures. Offline: ``authoring/`` (validator, set checks, README table).
"""

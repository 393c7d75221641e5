"""VendorReview-v1: larger deals (about 14 requirements, 0-5 gaps), a seeded deal generator for training and
hand-written test deals.

The runtime reuses v0's tools, episode, search, grading and catalogue unchanged; what is new is the deal
supply. ``library.py`` types the editable evidence library in ``assets/vendor_review/v1``, ``plan.py`` draws a
deal's choices from a seed, ``compose.py`` and ``thread.py`` write its documents, ``deals.py`` serves the
hand-written and generated deals by task id, ``env.py`` is the Gymnasium face and ``baselines.py`` holds the
cheap policies the issue measures.
"""

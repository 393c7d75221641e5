"""VendorReview-v0: the 20 hand-written deals (6 easy, 9 medium, 5 hard), each a requirements matrix of 6-9 rows
and a deal file of 4-6 documents.

Runtime: ``env.py`` (the Gymnasium face), ``tools.py`` (v0's submit tool over the shared search, read and ask),
``rules.py``, ``tasks.py`` (the shipped deals and the cast), ``grading.py``, ``catalogue.py``, ``baselines.py``.
Offline: ``authoring/`` (validator, set checks, README table). Shared code is in ``../shared``; assets in
``assets/vendor_review/v0/``. v0 is released: its observations never change.
"""

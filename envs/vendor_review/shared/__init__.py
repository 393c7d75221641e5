"""What every VendorReview version shares at run time: the typed deal (``scenario.py``), the per-deal search
(``search.py``), the episode (``episode.py``) and its opening message (``env.py``), the tool bodies
(``tools.py``), the decision rule (``rules.py``), the grader (``grading.py``) and the progress measures built on
it (``progress.py``), the discrete action catalogue (``catalogue.py``) over the shared taxonomy (``tasks.py``),
the scripted path builders (``baselines.py``), the placeholder filling of generated documents (``text.py``) and
the Gymnasium face of the versions whose deals come from a generator (``deal_env.py``).

A version folder (``v0/``, ``v1/``) imports from here and never from another version; nothing here imports a
version. Offline work that every version's validator shares (the checks) sits in ``authoring/``.
"""

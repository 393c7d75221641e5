"""InvoiceApproval: a German accounts-payable clerk decides supplier invoices against a written policy.

Runtime: ``env.py`` (the Gymnasium face), ``episode.py``, ``tools.py``, ``rules.py`` (the policy and the
reference solver), ``tasks.py`` and ``bundle.py`` (the company and its work orders), ``grading.py``,
``progress.py``, ``catalogue.py``, ``baselines.py``, and the books: ``db.py``, ``sandbox.py``,
``read_model.py``, ``json_sql.py``, ``ledger.py``, ``money.py``, ``numbers.py``, ``entities.py``,
``invariants.py``. Offline: ``authoring/`` (world generator, traps, seed DB, task builder, ``generate``).
``envs/README.md`` explains the roles.
"""

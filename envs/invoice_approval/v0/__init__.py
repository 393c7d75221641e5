"""InvoiceApproval-v0: the accounts-payable clerk deciding supplier invoices against the one-page policy.

Runtime: ``env.py`` (the Gymnasium face), ``episode.py``, ``tools.py``, ``rules.py`` (the policy and the
reference solver), ``tasks.py`` and ``bundle.py`` (the company and its work orders), ``grading.py``,
``progress.py``, ``catalogue.py``, ``baselines.py``, ``splits.py``, and v0's books: ``db.py``, ``sandbox.py``,
``read_model.py``, ``status_counts.py``, ``ledger.py``, ``invariants.py``. Offline: ``authoring/`` (world
generator, traps, seed DB, task builder, ``generate``). Shared code is in ``../shared``; assets in
``assets/invoice_approval/v0/``. v0 is released: its observations never change.
"""

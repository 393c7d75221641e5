"""InvoiceApproval: a German accounts-payable clerk decides supplier invoices against a written policy.

One folder per version (``v0/``, ``v1/``), each with the same file names for the same roles (``env.py``,
``tools.py``, ``rules.py``, ``tasks.py``, ``grading.py``, ``progress.py``, ``catalogue.py``, ``baselines.py``,
``authoring/``), over ``shared/``, the runtime code the versions share. ``env.py`` here only keeps the entry
point ``officegym.envs.invoice_approval.env:InvoiceApprovalEnv`` of the time before versions were siblings.
``envs/README.md`` explains the roles.
"""

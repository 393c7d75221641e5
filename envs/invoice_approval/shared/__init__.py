"""What every InvoiceApproval version shares at run time: the books and their private per-episode copy, the
tool bodies, the change-based grader, the slot catalogue's layout, the env base class and the honest-split search.

A version folder (``v0/``, ``v1/``) imports from here and never from another version; nothing here imports a
version. Offline work that every version's generator shares sits in ``authoring/``.
"""

"""InvoiceApproval-v2: v1's company, tasks and rules, with listers that cannot skip and captures that validate.

Two v1 findings changed results (issue 27), so they are fixed here, beside v1, which stays as released: a
``next_cursor`` taken before a decision paged on after it and skipped the documents the decision moved out of
the listing (``paging.py``: such a cursor is now refused), and ``capture_invoice`` stored impossible dates and
blank PO numbers (``capture_rules.py``: only the forms the policy states). Everything else is v1's, imported:
the world and its generation, the tasks and gold paths, the rules and the reference solver, grading. A version
folder normally imports only shared code; v2 imports v1 because it is v1 with two tools changed, and a copy of
v1's generator would be a second thing to keep byte-identical.
"""

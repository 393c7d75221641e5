"""InvoiceApproval-v1: the accounts-payable clerk of v0 with the work v0 left out.

Reverse charge (§ 13b UStG) and intra-EU acquisitions (§ 1a UStG) from EU suppliers, credit notes that name the
invoice they correct, goods receipts and a three-way match on goods POs, invoices that arrive as documents (some
not yet captured, some captured with errors), paged list tools, and processing order that differs from ID order.
The tools apply no policy. Runtime here; offline generation in ``authoring/``. v0 modules are reused by import
where the concept is the same (money, numbers, the tool machinery).
"""

"""InvoiceApproval: a German accounts-payable clerk decides supplier invoices against a written policy."""

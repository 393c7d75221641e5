"""Offline work for InvoiceApproval: generating the company, planting traps and building the tasks."""

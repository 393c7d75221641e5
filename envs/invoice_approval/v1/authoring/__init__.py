"""Offline work for InvoiceApproval-v1: rendering invoice documents as PDF files for the assets."""

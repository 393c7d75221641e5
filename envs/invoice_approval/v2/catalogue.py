"""The discrete action catalogue of InvoiceApproval-v2: v1's (``v1/catalogue.py``, same 394 entries and
features), which also starts a listing over when v2 refuses its cursor.

v2 refuses a cursor once a decision changed the listing it pages (``paging.py``). v1's catalogue kept the
refused cursor, so its "next page" entry would repeat the same error for the rest of the episode; here a
refusal of that kind forgets the listing as read so far, and the entry reads it again from the first page
(documents already in a work-order slot keep their slots).
"""

from __future__ import annotations

from typing import Any

from ..v1.catalogue import InvoiceCatalogueV1, Paging, PoSeen

CHANGED = "the listing has changed"
"""How v2's refusal of a stale cursor begins (``paging.Listing.offset``)."""


class InvoiceCatalogueV2(InvoiceCatalogueV1):
    """v1's catalogue; a listing whose cursor was refused as stale starts again from its first page."""

    def observe(self, index: int, observation: str, is_error: bool) -> None:
        if is_error and CHANGED in observation:
            self._restart(index)
        super().observe(index, observation, is_error)

    def _restart(self, index: int) -> None:
        entry, action = self.entries[index], self.resolve(index)
        arguments: dict[str, Any] = action["arguments"] if isinstance(action, dict) else {}
        if entry.verb == "list_inbox":
            self.inbox_pages = Paging()
        elif entry.verb == "list_supplier_invoices":
            self.listings[arguments["supplier_id"]] = Paging()
        elif entry.verb == "list_receipts" and arguments.get("po_number") in self.pos:
            seen = self.pos[arguments["po_number"]]
            self.pos[arguments["po_number"]] = PoSeen(seen.found)

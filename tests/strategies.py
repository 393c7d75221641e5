"""Hypothesis strategies for adversarial tool calls: valid ones with real IDs, and every kind of malformed one."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

INVOICE_IDS = [f"ER-2026-{n:05d}" for n in (1, 2, 17, 19, 20, 40, 77, 100, 150, 199, 200)] + ["ER-2026-99999"]
APPROVER_IDS = ["AP-113", "AP-117", "AP-145", "AP-212", "AP-999", ""]
ODD_STRINGS = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "'; DROP TABLE invoices; --",
        '" OR 1=1 --',
        "%",
        "_",
        "\\",
        "🙂" * 3,
        "\U0010fffd",
        "\u202e",
        "ß" * 300,
        "x" * 1_000_000,
        "ER-2026-00019\x00",
        "null",
        "[]",
        "{}",
        "K-70010",
    ]
)
ANY_TEXT = st.one_of(st.text(max_size=40), ODD_STRINGS)
ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True),
    ANY_TEXT,
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


INVOICE_WRITES = st.one_of(
    st.builds(lambda i: _call("approve_invoice", {"invoice_id": i}), st.sampled_from(INVOICE_IDS)),
    st.builds(
        lambda i, c: _call("reject_invoice", {"invoice_id": i, "reason_code": c}),
        st.sampled_from(INVOICE_IDS),
        st.sampled_from(["DUPLICATE", "MISSING_PO", "INVALID_PO", "VAT_ERROR", "PO_EXCEEDED", "x"]),
    ),
    st.builds(
        lambda i, c: _call("hold_invoice", {"invoice_id": i, "reason_code": c}),
        st.sampled_from(INVOICE_IDS),
        st.sampled_from(["SUPPLIER_BLOCKED", "PO_EXCEEDED", "DUPLICATE"]),
    ),
    st.builds(
        lambda i, a: _call("escalate_invoice", {"invoice_id": i, "approver_id": a}),
        st.sampled_from(INVOICE_IDS),
        st.sampled_from(APPROVER_IDS),
    ),
)
INVOICE_READS = st.one_of(
    st.builds(lambda i: _call("get_invoice", {"invoice_id": i}), st.sampled_from(INVOICE_IDS)),
    st.builds(
        lambda s, n: _call("list_invoices", {"status": s, "limit": n}),
        st.sampled_from(["received", "approved", "on_hold", "paid"]),
        st.integers(-5, 300),
    ),
    st.builds(lambda q: _call("search_suppliers", {"query": q}), ANY_TEXT),
    st.just(_call("whoami", {})),
    st.just(_call("list_approvers", {})),
)
MALFORMED = st.one_of(
    st.builds(lambda n, a: _call(n, a), ANY_TEXT, st.dictionaries(st.text(max_size=8), ANY_VALUE, max_size=3)),
    st.builds(
        lambda n, a: _call(n, a),
        st.sampled_from(
            ["get_invoice", "approve_invoice", "reject_invoice", "search_docs", "read_doc", "submit_recommendation"]
        ),
        st.dictionaries(
            st.sampled_from(["invoice_id", "reason_code", "doc_id", "query", "gap_ids", "decision", "extra"]),
            ANY_VALUE,
            max_size=3,
        ),
    ),
    ANY_TEXT,
    ANY_VALUE,
    st.builds(lambda c: json.dumps(c)[:-1], st.builds(dict)),
)
VENDOR_CALLS = st.one_of(
    st.builds(lambda q: _call("search_docs", {"query": q}), ANY_TEXT),
    st.builds(
        lambda d: _call("read_doc", {"doc_id": d}),
        st.sampled_from(["requirements-matrix", "questionnaire", "soc2-report", "it-thread", "nope"]),
    ),
    st.builds(lambda q: _call("ask_it_channel", {"question": q}), ANY_TEXT),
    st.builds(
        lambda d, g, r: _call("submit_recommendation", {"decision": d, "gap_ids": g, "rationale": r}),
        st.sampled_from(["go", "no-go", "conditional-go", "maybe"]),
        st.lists(st.sampled_from(["REQ-SSO", "REQ-SCIM", "REQ-OFFLINE", "REQ-NOPE", "REQ-SOC2"]), max_size=3),
        ANY_TEXT,
    ),
)

V1_INVOICE_IDS = [f"ER-2026-{n:05d}" for n in (1, 2, 37, 38, 100, 150, 200, 250, 278)] + [
    "ER-2026-99999",
    "ER-2026-00279",
]
V1_INVOICE_CALLS = st.one_of(
    st.builds(lambda i: _call("get_document", {"invoice_id": i}), st.sampled_from(V1_INVOICE_IDS)),
    st.builds(lambda i: _call("get_invoice", {"invoice_id": i}), st.sampled_from(V1_INVOICE_IDS)),
    st.builds(
        lambda s, c, b: _call("list_invoices", {"status": s, "cursor": c, "inbox": b}),
        st.sampled_from(["", "received", "approved", "paid"]),
        st.one_of(st.just(""), ANY_TEXT, st.sampled_from(["eyJ9", "MTA=", "=" * 8])),
        st.sampled_from(["", "PE-101", "PE-999"]),
    ),
    st.builds(
        lambda p, c: _call("list_goods_receipts", {"po_number": p, "cursor": c}),
        st.sampled_from(["4500000616", "4500999871", "45", ""]),
        st.one_of(st.just(""), ANY_TEXT),
    ),
    st.builds(
        lambda i, no, d, n, r, v, g: _call(
            "capture_invoice",
            {
                "invoice_id": i,
                "supplier_invoice_no": no,
                "invoice_date": d,
                "net_cents": n,
                "vat_rate": r,
                "vat_cents": v,
                "gross_cents": g,
            },
        ),
        st.sampled_from(V1_INVOICE_IDS),
        ANY_TEXT,
        st.sampled_from(["2026-03-14", "14.03.2026", "2026-02-30", ""]),
        st.one_of(st.integers(-(2**63), 2**63), ANY_VALUE),
        st.sampled_from([0, 7, 19, -1, 100]),
        st.integers(-10, 10**9),
        st.integers(-10, 10**9),
    ),
    st.builds(lambda i: _call("approve_invoice", {"invoice_id": i}), st.sampled_from(V1_INVOICE_IDS)),
    st.builds(
        lambda i, c: _call("reject_invoice", {"invoice_id": i, "reason_code": c}),
        st.sampled_from(V1_INVOICE_IDS),
        st.sampled_from(["DUPLICATE", "VAT_ERROR", "CREDIT_NO_ORIGINAL", "PO_EXCEEDED", "x"]),
    ),
    st.builds(
        lambda i, c: _call("hold_invoice", {"invoice_id": i, "reason_code": c}),
        st.sampled_from(V1_INVOICE_IDS),
        st.sampled_from(["QUANTITY_NOT_RECEIVED", "PRICE_VARIANCE", "CREDIT_ORIGINAL_OPEN", "VAT_ERROR"]),
    ),
    st.builds(
        lambda i, a: _call("escalate_invoice", {"invoice_id": i, "approver_id": a}),
        st.sampled_from(V1_INVOICE_IDS),
        st.sampled_from(["AP-106", "AP-146", "AP-319", "AP-999", ""]),
    ),
)

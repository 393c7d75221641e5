"""The clerk's three tools. Each docstring is the description the model reads; ``Args:`` documents every parameter.

Writes validate everything before they change anything: the base ``ToolEnv._atomic`` is a no-op (there is no
database to roll back), so a ``ToolError`` raised after a mutation would leave a trace.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

from officegym.envs.core import MaxLen, Tool, ToolError, tool

from .episode import PettyCashEpisode
from .tasks import data


@tool()
def list_receipts(ctx: PettyCashEpisode, employee_id: Annotated[str, MaxLen(10)]) -> str:
    """List an employee's receipts: ID, category, amount in EUR and status (submitted, reimbursed or rejected).

    Args:
        employee_id: The employee's ID as the staff list shows it, e.g. "E-01".
    """
    if employee_id not in data()["employees"]:
        raise ToolError(f"no employee '{employee_id}'; the staff are {', '.join(data()['employees'])}")
    rows = [asdict(r) | {"status": ctx.status[r.id]} for r in ctx.task.receipts if r.employee_id == employee_id]
    return json.dumps({"employee_id": employee_id, "receipts": rows})


@tool(writes=True)
def mark_reimbursed(ctx: PettyCashEpisode, receipt_id: Annotated[str, MaxLen(10)]) -> str:
    """Pay a submitted receipt out of petty cash; its status becomes reimbursed.

    Args:
        receipt_id: The receipt's ID as list_receipts shows it, e.g. "PC-101".
    """
    status = ctx.status.get(receipt_id)
    if status is None:
        raise ToolError(f"no receipt '{receipt_id}'; list_receipts shows an employee's receipts")
    if status != "submitted":
        raise ToolError(f"{receipt_id} is {status}; only submitted receipts can be reimbursed")
    ctx.status[receipt_id] = "reimbursed"  # the only mutation, after every check
    return f"{receipt_id} reimbursed."


@tool(terminal=True)
def close_request(ctx: PettyCashEpisode, note: Annotated[str, MaxLen(200)]) -> str:
    """Close the request when the work is done. This ends the episode.

    Args:
        note: One sentence for the requester, e.g. "Paid PC-101.".
    """
    if not note.strip():
        raise ToolError("the note is empty; say in one sentence what was done")
    ctx.closed_note = note
    return "Request closed."


TOOLS: tuple[Tool, ...] = (list_receipts, mark_reimbursed, close_request)

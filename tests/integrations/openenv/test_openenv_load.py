"""The load test, in the suite: ``officegym serve`` as real subprocesses, one per env id, and one session for
each of the first 20 tasks of every env at once (100 sessions: every session a different task), driven by
OpenEnv's own async client. Every session resets before any plays (a barrier), so all are open together; each
plays its full gold episode. Every episode is graded 1.0 and every observation equals a local env's for the same
task, seed and actions (no cross-talk); no server logs an error; the servers are gone afterwards.

``python -m benchmarks.openenv_load`` runs the same with more rounds and reports timings; none are asserted.
"""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from benchmarks.openenv_load import plan, run_round, servers

from .conftest import ENV_IDS, HANG_GUARD

TASKS_PER_ENV = 20
"""Sessions per env: the first tasks of each (VendorReview-v2 alone has 220 tasks; one session per task of every
env would be 448 sessions opening at once on two cores, a test of the machine rather than of the server)."""


def test_64_plus_concurrent_sessions_each_a_different_task_all_graded_1_without_cross_talk() -> None:
    jobs = [job for env_id in ENV_IDS for job in plan([env_id])[:TASKS_PER_ENV]]
    assert len(jobs) >= 64 and len({(job.env_id, job.task_id) for job in jobs}) == len(jobs)
    with servers(ENV_IDS, max_sessions=len(jobs)) as fleet:
        result = run_round(fleet.urls, jobs)
        logged = fleet.log_errors()
    assert result["problems"] == []
    assert (result["sessions"], result["episodes_graded_1"], result["errors"]) == (len(jobs), len(jobs), 0)
    assert logged == []
    for url in fleet.urls.values():  # every server has been shut down
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(f"{url}/health", timeout=HANG_GUARD)

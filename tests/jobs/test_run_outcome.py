"""How a run that worked through its items ends: a run that did nothing is not green."""

import pytest

from webapp.jobs.ending import outcome
from webapp.jobs.models import RunStatus


@pytest.mark.parametrize(
    ("done", "failed", "status"),
    [
        (3, 0, RunStatus.succeeded),
        (0, 0, RunStatus.succeeded),  # nothing to do, nothing failed
        (3, 1, RunStatus.completed_with_errors),
        (3, 2, RunStatus.completed_with_errors),
        (3, 3, RunStatus.failed),
        (1, 1, RunStatus.failed),  # the fertilizer run for an unknown crop
    ],
)
def test_a_run_ends_by_what_its_items_did(done, failed, status):
    assert outcome(done, failed) == status

"""How a run that worked through its items ends: a run that did nothing is not green."""

import pytest

from tests.support.kinds import GatedItems
from webapp.extensions import db
from webapp.jobs.ending import complete, outcome
from webapp.jobs.models import Run, RunStatus


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


def ended(results, errors=None):
    """A running run of two items, both done, completed by any kind's rules."""
    run = Run(
        kind="test_gated",
        title="Gated test items",
        status=RunStatus.running,
        items=["a", "b"],
        done_items=["a", "b"],
        total=2,
        done=2,
        results=results,
        item_errors=errors or {},
    )
    db.session.add(run)
    db.session.commit()
    complete(run, GatedItems())
    db.session.expire_all()
    return db.session.get(Run, run.id)


def test_a_run_whose_every_item_found_nothing_ends_nothing_found_saying_why(app):
    why = {"nothing_found": "the library has no “Dragonfruit”"}
    run = ended({"a": why, "b": {"nothing_found": "the library has no “Kiwano”"}})
    assert run.status == RunStatus.nothing_found
    assert run.message == (
        "Nothing found in any of 2 items: the library has no “Dragonfruit”; "
        "the library has no “Kiwano”."
    )
    assert run.error_code is None and not run.can_resume
    # One item that found something makes the run green; an item that failed, amber.
    assert ended({"a": why, "b": {"rows": 3}}).status == RunStatus.succeeded
    assert ended({"a": why}, {"b": "boom"}).status == RunStatus.completed_with_errors
    # Kinds whose results never say so end as before.
    assert ended({"a": {}, "b": {}}).status == RunStatus.succeeded


def test_a_run_page_shows_an_item_that_found_nothing_and_why():
    results = {"a": {"nothing_found": "no such crop"}, "b": {"n": 1}}
    run = Run(items=["a", "b"], results=results, item_errors={})
    [a, b] = GatedItems().outcomes(run)
    assert (a.issue, b.issue) == ("Nothing found: no such crop.", None)

"""Quick items (a formula computed) worked in turn on the runner's thread: every result and
error kept, saved in batches, and a cancel seen between items."""

from tests.support.kinds import QuickItems
from tests.support.tables import run_here
from webapp.jobs.models import RunStatus
from webapp.jobs.queue import enqueue_run


def test_quick_items_are_all_kept_with_their_errors(app, make_user, idle_queue):
    run = enqueue_run(QuickItems, make_user("editor"), {"count": 1200, "fail": ["item-7"]})
    done = run_here(run, QuickItems())
    assert done.status == RunStatus.completed_with_errors
    assert done.done == 1200 and len(done.results) == 1199
    assert done.results["item-1199"] == {"item": "item-1199"}
    assert done.item_errors == {"item-7": "item-7 failed as the test asked"}


def test_a_cancel_stops_quick_items_before_the_next_one_and_keeps_the_rest(
    app, make_user, idle_queue
):
    params = {"count": 6, "fail": ["item-1"], "cancel_at": "item-2"}
    run = enqueue_run(QuickItems, make_user("editor"), params)
    cancelled = run_here(run, QuickItems())
    assert cancelled.status == RunStatus.cancelled
    assert sorted(cancelled.done_items) == ["item-0", "item-1", "item-2"]
    assert sorted(cancelled.results) == ["item-0", "item-2"]
    assert cancelled.item_errors == {"item-1": "item-1 failed as the test asked"}
    assert cancelled.pending_items == ["item-1", "item-3", "item-4", "item-5"]

"""A server process's collector: the start-up heap frozen, young collections less often."""

import gc

from webapp.heap import YOUNG, settle


def test_settle_freezes_the_start_up_heap_and_raises_the_young_threshold():
    threshold = gc.get_threshold()
    try:
        settle()
        assert gc.get_freeze_count() > 10_000  # the modules and everything they made
        assert gc.get_threshold() == (YOUNG, threshold[1], threshold[2])
        # Cycles are still found, only later: an explicit collection frees them.
        cycle: list = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)

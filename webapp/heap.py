"""The cyclic garbage collector set for a long-lived server process (the web, an RQ worker).

Everything made at start-up (modules, the app, its templates: ~190,000 objects) lives as long
as the process: frozen, a full collection no longer walks it. And a young collection waits for
YOUNG new objects, not CPython's 700: a 10,000-row run or apply keeps a few hundred thousand
objects alive while it works, and the default thresholds made full collections walk them
again and again (a third of such a job's CPU time). Reference counting frees everything
that is not in a cycle whatever the thresholds; they only delay finding cycles."""

from __future__ import annotations

import gc

YOUNG = 50_000


def settle() -> None:
    """Call once the process has made its app, before it serves or forks work horses."""
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, old)

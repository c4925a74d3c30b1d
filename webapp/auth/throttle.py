"""How long a login must wait after failed attempts: a plain rule over recent failure times."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

WINDOW = timedelta(minutes=15)


@dataclass(frozen=True)
class Limit:
    failures: int
    window: timedelta = WINDOW


PER_ACCOUNT = Limit(failures=5)
PER_ADDRESS = Limit(failures=20)


def seconds_to_wait(failures: Sequence[datetime], limit: Limit, now: datetime) -> int:
    """0 while fewer than limit.failures fell inside the window; else until the oldest ages out."""
    recent = sorted(at for at in failures if now - at < limit.window)
    if len(recent) < limit.failures:
        return 0
    oldest_that_counts = recent[-limit.failures]
    return max(1, int((oldest_that_counts + limit.window - now).total_seconds()) + 1)

"""How a run kind shows its items on the run's review page: a suggestion's row (what people
call it, what else the run says about it), and an item the run proposed nothing for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RowLook:
    """A suggestion's row: its name ("Plot 011", "Carrot: Row spacing"), how its values read
    ("figures": three significant figures; "markdown": text), and what the kind's detail
    partial shows beside it (its trace, how it was worked out)."""

    name: str
    show: str | None = None
    detail: Any = None


@dataclass(frozen=True)
class Unproposed:
    """An item the run proposed nothing for, and why, in words."""

    name: str
    why: str
    status: str = "nothing proposed"
    now: Any = None
    detail: Any = None

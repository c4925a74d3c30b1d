"""Record ids as people and forms send them: read once, here, for URLs, forms and query strings.

An id is ASCII digits naming a row a database id column can hold. Anything else ("²", which
str.isdigit takes and int() refuses, thirty digits, which overflow the driver, "-1", " 7") names
no record: None, so the view answers as it does for an id that does not exist."""

from __future__ import annotations

from collections.abc import Iterable

# The largest id a database id column holds (PostgreSQL's integer).
MAX_ID = 2**31 - 1
MAX_ID_DIGITS = len(str(MAX_ID))


def record_id(raw: object) -> int | None:
    """The id in raw (a form field, a query argument, a URL part), or None if it names none."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw if 1 <= raw <= MAX_ID else None
    if not isinstance(raw, str) or not (raw.isascii() and raw.isdigit()):
        return None
    if len(raw) > MAX_ID_DIGITS:
        return None
    value = int(raw)
    return value if 1 <= value <= MAX_ID else None


def record_ids(raws: Iterable[object]) -> list[int]:
    """The ids among raws, in their order, each once; the rest are left out."""
    return list(dict.fromkeys(i for i in map(record_id, raws) if i is not None))


def digits_at_most(limit: int) -> str:
    """A regular expression for the whole numbers 1..limit in ASCII digits without leading
    zeros: a URL converter that matches no more than it takes lets the router answer 404 for
    a larger id, where a converter refusing it after the match made other methods' routes
    answer 405."""
    text = str(limit)
    width = len(text)
    shorter = [rf"[1-9][0-9]{{0,{width - 2}}}"] if width > 1 else []
    below = [
        text[:i] + f"[{1 if i == 0 else 0}-{int(digit) - 1}]" + f"[0-9]{{{width - i - 1}}}"
        for i, digit in enumerate(text)
        if int(digit) > (1 if i == 0 else 0)
    ]
    return "(?:" + "|".join([*shorter, *below, text]) + ")"

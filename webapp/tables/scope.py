"""Where a row is and where a reference figure holds: a figure from a source bounded to a place
(the DüV's German reference yields) answers no row about another place."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from webapp.reference.library import library

# Column names that hold a place, in the languages the app reads.
PLACE_WORDS = (
    "country",
    "region",
    "state",
    "province",
    "district",
    "county",
    "area",
    "location",
    "place",
    "land",
    "pays",
    "région",
    "bundesland",
    "staat",
    "país",
)


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", str(text))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def row_places(row: Mapping[str, Any]) -> tuple[str, ...]:
    """The row's place values, by column names that say they hold a place."""
    return tuple(
        value
        for name, value in row.items()
        if isinstance(value, str)
        and value.strip()
        and any(word in column_words(name) for word in PLACE_WORDS)
    )


def column_words(name: str) -> tuple[str, ...]:
    """A column name's words, folded: "State_Name" is ("state", "name")."""
    return tuple(w for w in re.split(r"[\W_]+", _fold(name)) if w)


@functools.cache
def _scopes() -> dict[str, tuple[str, ...]]:
    return {s.url: s.scope for s in library().sources.values() if s.scope}


def elsewhere(url: str | None, places: Iterable[str]) -> str | None:
    """The place a source's figures hold for, when the row's places are none of it."""
    scope = _scopes().get(url or "")
    places = [_fold(p) for p in places]
    if not scope or not places:
        return None
    names = [_fold(name) for name in scope]
    if any(name in place or place in name for name in names for place in places):
        return None
    return scope[0]

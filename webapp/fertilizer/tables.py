"""The methods' published tables, bundled as JSON under data/: each table keeps its rows as
the source prints them, the source's URL, and a verbatim quote of the rows, so each figure
can be checked against the source it cites."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("data")


@functools.cache
def table(name: str) -> dict[str, Any]:
    """The bundled table name (duev, vdlufa, rb209, published)."""
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def source_url(data: dict[str, Any], source_id: str | None) -> str | None:
    """The URL of a table's source by its id."""
    source = data.get("sources", {}).get(source_id or "")
    return source.get("url") if source else None

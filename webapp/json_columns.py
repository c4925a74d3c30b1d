"""The text of JSON columns, written and read by orjson: several times quicker than the json
module at a large run's research log and suggestions. Imports no database layer, as the
settings that hand it to the engine are read by commands that make no app."""

from __future__ import annotations

import json
from typing import Any

import orjson


def json_text(value: Any) -> str:
    """A JSON column's text; by json what orjson refuses (an integer past 64 bits)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value)


def json_value(text: str | bytes | memoryview) -> Any:
    """A JSON column's value, read by orjson; by json what it refuses (NaN, written before). A
    number SQLite stored as a number raises TypeError, on which SQLAlchemy keeps it as it is."""
    if not isinstance(text, str | bytes | bytearray | memoryview):
        raise TypeError(f"JSON text expected, not {type(text).__name__}")
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(bytes(text) if isinstance(text, memoryview) else text)

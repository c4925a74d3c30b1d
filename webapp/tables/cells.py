"""What a person may put in a cell, per column type: strict, with a clear message.

(Answers from strategies go through webapp.tables.coerce first, which is lenient and rates its
confidence; a value only lands in a cell through parse_cell.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlparse

from webapp.numbers import NumberInvalid, display_number, parse_number
from webapp.problems import Invalid
from webapp.text import control_character_problem

COLUMN_TYPES = ("text", "number", "boolean", "select", "url")
TEXT_LIMIT = 2000
TRUE_WORDS = frozenset({"true", "yes", "y", "1", "ja", "oui", "wahr"})
FALSE_WORDS = frozenset({"false", "no", "n", "0", "nein", "non", "falsch"})


class CellInvalid(Invalid):
    """A value the column cannot hold; the message says what it expects."""

    code = "value_invalid"


def parse_cell(column_type: str, raw: Any, options: Sequence[str] = ()) -> Any:
    """The stored value for raw input (text from a form or CSV, or JSON), None when empty."""
    if raw is None:
        return None
    if isinstance(raw, str):
        raw = raw.strip()
        if raw == "":
            return None
        # A text cell may hold paragraphs (a quoted CSV cell can); other cells are one line.
        problem = control_character_problem(raw, multiline=column_type == "text")
        if problem:
            raise CellInvalid(problem)
    if column_type == "text":
        text = str(raw)
        if len(text) > TEXT_LIMIT:
            raise CellInvalid(f"Text is limited to {TEXT_LIMIT} characters.")
        return text
    if column_type == "number":
        return _number(raw)
    if column_type == "boolean":
        return _boolean(raw)
    if column_type == "select":
        text = str(raw)
        for option in options:
            if option.casefold() == text.casefold():
                return option
        allowed = ", ".join(options) or "none defined"
        raise CellInvalid(f"Choose one of the options ({allowed}).")
    if column_type == "url":
        return _url(str(raw))
    raise CellInvalid(f"Unknown column type {column_type!r}.")


def _number(raw: Any) -> float | int:
    try:
        number = parse_number(raw)
    except NumberInvalid as refused:
        if refused.code != "not_a_number":
            raise CellInvalid(str(refused)) from None
        raise CellInvalid(
            f"Give a number, not {raw!r}." if isinstance(raw, str) else "Give a number."
        ) from None
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def _boolean(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    word = str(raw).strip().casefold()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise CellInvalid("Give yes or no (true/false).")


def _url(text: str) -> str:
    if "://" not in text:
        text = "https://" + text
    parsed = urlparse(text)
    if parsed.scheme not in ("http", "https") or not parsed.netloc or " " in text:
        raise CellInvalid("Give a web address (http or https).")
    return text


def display(value: Any) -> str:
    """A cell's value as text (CSV export, the edit box)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def shown(value: Any) -> str:
    """A cell as its table's page shows it: a number as every page shows numbers (5.94, not
    5.942857143; display_number), anything else as display gives it. The value, its export and
    its edit box keep every digit."""
    if isinstance(value, float) and not value.is_integer():
        return str(display_number(value))
    return display(value)


def infer_type(values: Sequence[str]) -> tuple[str, list[str]]:
    """A column type (and select options) that every non-empty value fits: number, boolean,
    url, select (few distinct short values, repeated), else text."""
    present = [v.strip() for v in values if v and v.strip()]
    if not present:
        return "text", []
    for column_type in ("number", "boolean", "url"):
        try:
            for value in present:
                if column_type == "url" and not value.lower().startswith(("http://", "https://")):
                    raise CellInvalid("not a url")
                parse_cell(column_type, value)
        except CellInvalid:
            continue
        return column_type, []
    distinct = sorted({v for v in present}, key=str.casefold)
    if len(distinct) <= 12 and len(present) >= 2 * len(distinct) and max(map(len, distinct)) <= 40:
        return "select", distinct
    return "text", []

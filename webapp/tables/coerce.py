"""The value coercion layer: every strategy's raw answer becomes a typed cell value, rated.

coerce_value() never raises for an odd answer: it says how sure it is (confidence), whether the
value may be applied (valid), what it did (note, for the trace) and why not (error, for people).
"Not found" answers leave the cell empty; they are never stored as a placeholder text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from webapp.numbers import NumberInvalid, parse_number
from webapp.tables.cells import FALSE_WORDS, TRUE_WORDS, CellInvalid, parse_cell
from webapp.tables.rules import implausible
from webapp.units import UnitMismatch, convert, find_quantity, known_unit

NOT_FOUND = "Could not determine an answer."
TEXT_LIMIT = 2000

_PREAMBLES = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"^(?:sure|certainly|of course|absolutely|okay|ok|great question)[!.,:]+\s*(?=\S)",
        r"^(?:based on|according to)\b[^,:\n]{0,80}[,:]\s*(?=\S)",
        r"^after (?:searching|researching|reviewing|checking|looking)\b[^,:\n]{0,60},\s*(?=\S)",
        r"^here(?:'s|’s| is| are)\b[^:\n]{0,60}:\s*(?=\S)",
        r"^in (?:summary|short|conclusion|brief),\s*(?=\S)",
        r"^(?:the\s+)?(?:final\s+|short\s+)?answer\s*(?:is\b\s*:?|:|-|–|—)\s*(?=\S)",
        r"^the (?:value|result|number|figure|year|date) (?:is|was)\b\s*:?\s*(?=\S)",
        r"^(?:i (?:found|believe|think)|it (?:appears|seems))(?: that)?\s+(?=\S)",
    )
)
_PREAMBLE_ROUNDS = 6
_WRAPPERS = (('"', '"'), ("'", "'"), ("“", "”"), ("‘", "’"), ("`", "`"), ("**", "**"))

_NOT_FOUND_WORDS = frozenset(
    {
        "",
        "n/a",
        "n.a",
        "na",
        "nan",
        "unknown",
        "not known",
        "not available",
        "unavailable",
        "not applicable",
        "not specified",
        "none",
        "nil",
        "null",
        "undefined",
        "not found",
        "no data",
        "no information",
        "no value",
        "no answer",
        "-",
        "--",
        "–",
        "—",
        "?",
        "could not determine an answer",
        "could not determine",
        "cannot determine",
        "can't determine",
        "unable to determine",
        "i don't know",
        "i do not know",
        "not sure",
    }
)

_CURRENCY = re.compile(r"[$€£¥₹]")
_LEADING_WORD = re.compile(r"^(\w+)\s*[,.;:!—–-]")
_SCHEME = re.compile(r"^[a-z][a-z0-9+-]*:(?!\d)", re.IGNORECASE)
_URL_IN_TEXT = re.compile(r"\bhttps?://[^\s<>\"'`]+|\bwww\.[^\s<>\"'`]+", re.IGNORECASE)


@dataclass(frozen=True)
class Coerced:
    value: Any  # None when not found; float|int for number, bool for boolean, str otherwise
    confidence: str  # "high" | "medium" | "low" | "none"
    valid: bool  # False: the value must not be applied
    note: str | None  # what was done, for the trace
    error: str | None  # why invalid, for people
    code: str | None = None  # why invalid, as an issue code (value_malformed, unit_mismatch …)


def strip_preamble(text: str) -> str:
    """text without an assistant's lead-in ("Based on my research, ...") or wrapping quotes."""
    # Lead-ins nest ("Sure! Answer: 'Based on my research, 2010'"); a few rounds unwrap them,
    # and a bound keeps a long run of them from costing quadratic time.
    for _round in range(_PREAMBLE_ROUNDS):
        previous = text
        text = text.strip()
        for pattern in _PREAMBLES:
            text = pattern.sub("", text, count=1)
        for opening, closing in _WRAPPERS:
            inner = text[len(opening) : -len(closing)]
            if (
                len(text) >= len(opening) + len(closing)
                and text.startswith(opening)
                and text.endswith(closing)
                # '"a" and "b"' is two quotations, not one wrapped answer.
                and opening not in inner
                and closing not in inner
            ):
                text = inner
        if text == previous:
            break
    return text.strip()


def is_not_found(text: str | None) -> bool:
    """Whether text says there is no answer ("N/A", "unknown", NOT_FOUND ...)."""
    if text is None:
        return True
    return _canonical(text) in _NOT_FOUND_WORDS


def coerce_value(
    raw: Any, column_type: str, options: Sequence[str] = (), unit: str | None = None
) -> Coerced:
    """raw as a value for a column of column_type ("text", "number", "boolean", "select", "url").

    For number columns with a unit, a unit named in the answer is converted to it; an answer
    without a unit is taken to be in the column's unit.
    """
    if column_type not in ("text", "number", "boolean", "select", "url"):
        raise ValueError(f"unknown column type {column_type!r}")
    if raw is None:
        return _NOTHING
    if column_type == "number" and isinstance(raw, int | float) and not isinstance(raw, bool):
        return _plausible(_typed_number(raw), unit)
    if column_type == "boolean" and isinstance(raw, bool):
        return Coerced(raw, "high", True, None, None)
    answer = str(raw)
    text = strip_preamble(answer)
    if column_type == "select":
        # An option may itself read like "no answer" ("None", "Unknown"): it wins.
        exact = _exact_option(text, options)
        if exact is not None:
            return Coerced(exact, "high", True, None, None)
    if is_not_found(text):
        return _NOTHING
    if column_type == "number":
        # A lead-in or quotes around a number are extras: the answer was not clean.
        lead_in = None if text == answer.strip() else f"read {_quote(answer)} as {_quote(text)}"
        return _plausible(_number(text, unit, lead_in), unit)
    if column_type == "boolean":
        return _boolean(text)
    if column_type == "select":
        return _select(text, options)
    if column_type == "url":
        return _url(text)
    if len(text) > TEXT_LIMIT:
        note = f"truncated to {TEXT_LIMIT} characters"
        return Coerced(text[:TEXT_LIMIT], "medium", True, note, None)
    return Coerced(text, "high", True, None, None)


_NOTHING = Coerced(None, "none", True, None, None)


def _canonical(text: str) -> str:
    return " ".join(text.split()).rstrip(". ").casefold()


def _number(text: str, column_unit: str | None, lead_in: str | None) -> Coerced:
    notes = [lead_in] if lead_in else []
    currencies = sorted(set(_CURRENCY.findall(text)))
    if currencies:
        notes.append("stripped " + " and ".join(f"'{symbol}'" for symbol in currencies))
        text = _CURRENCY.sub(" ", text).strip()
    quantity = find_quantity(text)
    if quantity is None:
        return _invalid(f"No number in the answer {_quote(text)}.", "value_malformed")
    value = quantity.value
    if quantity.bounds is not None:
        low, high = quantity.bounds
        value = (low + high) / 2
        notes.append(
            f"The answer gives {_format(low)}–{_format(high)}; the mean {_format(value)} is taken."
        )
    if not math.isfinite(value):
        message = f"{quantity.number_text} is not a finite number."
        return _invalid(message, "value_malformed")
    if re.search(r"[^\d.+\-−]", quantity.number_text):
        notes.append(f"read '{quantity.number_text}' as {_format(quantity.value)}")
    trailing = text[quantity.end :].strip(" .")
    if quantity.start > 0 or trailing:
        notes.append(f"took the number from {_quote(text)}")
    extras = bool(lead_in or currencies or quantity.start > 0 or trailing or quantity.bounds)
    if quantity.unit is not None:
        try:
            value, unit_note = in_column_unit(value, quantity.unit, column_unit)
        except UnitMismatch as refused:
            return _invalid(str(refused), refused.code, "; ".join(notes) or None, text)
        if unit_note:
            notes.append(unit_note)
        extras = extras or not column_unit
    return Coerced(
        _plain(value), "medium" if extras else "high", True, "; ".join(notes) or None, None
    )


def in_column_unit(value: float, unit: str, column_unit: str | None) -> tuple[float, str | None]:
    """value, written in unit, in the column's unit, and what was done; UnitMismatch (with its
    code) when the unit cannot be read or converted. Only a column without a unit takes any."""
    if not column_unit:
        return value, f"kept the unit '{unit}' as written (the column has none)"
    if _canonical(unit) == _canonical(column_unit):
        return value, None
    if not known_unit(unit):
        raise UnitMismatch(
            f"'{unit}' after the number is not a unit that converts to {column_unit}.",
            "unit_unreadable",
        )
    if not known_unit(column_unit):
        raise UnitMismatch(
            f"The column's unit '{column_unit}' cannot be checked against '{unit}'.",
            "unit_unreadable",
        )
    converted = convert(value, unit, column_unit)
    return converted, f"converted {_format(value)} {unit} to {_format(converted)} {column_unit}"


def _invalid(error: str, code: str, note: str | None = None, shown: Any = None) -> Coerced:
    return Coerced(shown, "low", False, note, error, code)


def _plausible(coerced: Coerced, unit: str | None) -> Coerced:
    """A number the column's unit rules out is invalid, with the reason."""
    if not coerced.valid or coerced.value is None:
        return coerced
    reason = implausible(coerced.value, unit)
    if reason is None:
        return coerced
    return Coerced(coerced.value, "low", False, coerced.note, reason, "value_implausible")


def _typed_number(raw: int | float) -> Coerced:
    try:
        return Coerced(_plain(parse_number(raw)), "high", True, None, None)
    except NumberInvalid as refused:
        return _invalid(str(refused), "value_malformed")


def _plain(value: float) -> int | float:
    """12.0 -> 12: whole numbers come back as int (while a float holds them exactly)."""
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _format(value: float) -> str:
    return f"{value:.5g}"


def _quote(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _boolean(text: str) -> Coerced:
    word = _canonical(text).rstrip("!")
    if word in TRUE_WORDS or word in FALSE_WORDS:
        return Coerced(word in TRUE_WORDS, "high", True, None, None)
    # "Yes, it tolerates drought." but not "No idea".
    leading = _LEADING_WORD.match(word)
    if leading and (leading.group(1) in TRUE_WORDS or leading.group(1) in FALSE_WORDS):
        note = f"read {_quote(text)} as {leading.group(1)}"
        return Coerced(leading.group(1) in TRUE_WORDS, "medium", True, note, None)
    return _invalid(f"Not a clear yes or no: {_quote(text)}.", "value_malformed")


def _option_key(text: str) -> str:
    return _canonical(text).rstrip("!;:")


def _exact_option(text: str, options: Sequence[str]) -> str | None:
    key = _option_key(text)
    if not key:
        return None
    return next((option for option in options if _option_key(option) == key), None)


def _select(text: str, options: Sequence[str]) -> Coerced:
    key = _option_key(text)
    # The longest, so that "very low" picks "Very low" over "Low".
    matches = [
        option
        for option in options
        if (option_key := _option_key(option)) and (option_key in key or key in option_key)
    ]
    if matches:
        option = max(matches, key=len)
        return Coerced(option, "medium", True, f"matched {_quote(text)} to '{option}'", None)
    allowed = ", ".join(options) or "(none defined)"
    return _invalid(f"not one of the options: {allowed}", "value_malformed", shown=text)


def _url(text: str) -> Coerced:
    notes: list[str] = []
    candidate = text
    if re.search(r"\s", candidate):
        found = _URL_IN_TEXT.search(candidate)
        if found is None:
            return _invalid(f"No web address in {_quote(text)}.", "value_malformed", shown=text)
        candidate = found.group(0)
        notes.append(f"took the address from {_quote(text)}")
    if len(candidate) > TEXT_LIMIT:
        message = f"The address is longer than {TEXT_LIMIT} characters."
        return _invalid(message, "value_malformed", shown=text)
    candidate = _trim_url(candidate)
    if not _SCHEME.match(candidate):
        candidate = "https://" + candidate
        notes.append("added https://")
    error = _url_error(candidate)
    if error:
        return _invalid(error, "value_malformed", "; ".join(notes) or None, text)
    return Coerced(candidate, "medium" if notes else "high", True, "; ".join(notes) or None, None)


def _trim_url(url: str) -> str:
    """Without the punctuation around it: "<https://x.org>", "(x.org).", but keeping the
    parenthesis of "https://en.wikipedia.org/wiki/Bean_(plant)"."""
    previous = None
    while url != previous:
        previous = url
        if url[:1] + url[-1:] in ("<>", "()", "[]"):
            url = url[1:-1]
        url = url.rstrip(".,;:!?'\"")
        for opening, closing in ("()", "[]"):
            if url.endswith(closing) and url.count(closing) > url.count(opening):
                url = url[:-1]
    return url


def _url_error(url: str) -> str | None:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return f"{_quote(url)} is not a valid web address."
    if parts.scheme.lower() not in ("http", "https"):
        return f"Only http and https addresses are allowed, not {parts.scheme}:."
    host = parts.hostname or ""
    if not host or ("." not in host and ":" not in host and host != "localhost"):
        return f"{_quote(url)} has no valid host name."
    if re.search(r"[\s\x00-\x1f]", url):
        return f"{_quote(url)} is not a valid web address."
    return None


def typed_value(
    column_type: str, raw: Any, options: Sequence[str] = (), unit: str | None = None
) -> tuple[Any, str | None]:
    """What a person typed, as the cell's value, and what was done to it. Strict like
    parse_cell, except that a number may carry a unit, converted to the column's ("3 kg/m2"
    in a t/ha column is 30). Raises CellInvalid with a message for people."""
    value, note = _typed(column_type, raw, options, unit)
    reason = implausible(value, unit) if column_type == "number" and value is not None else None
    if reason:
        raise CellInvalid(reason)
    return value, note


def _typed(
    column_type: str, raw: Any, options: Sequence[str], unit: str | None
) -> tuple[Any, str | None]:
    try:
        return parse_cell(column_type, raw, options), None
    except CellInvalid:
        if column_type != "number" or not isinstance(raw, str):
            raise
    text = raw.strip()
    quantity = find_quantity(text)
    if quantity is None or quantity.start > 0 or quantity.end < len(text.rstrip(" .")):
        raise CellInvalid(f"Give a number, not {text!r}.") from None
    if quantity.is_range:
        raise CellInvalid(f"Give one number, not the range {text!r}.") from None
    if quantity.unit is None or not unit:
        raise CellInvalid(f"Give a number, not {text!r}.") from None
    try:
        value, note = in_column_unit(quantity.value, quantity.unit, unit)
    except UnitMismatch as refused:
        raise CellInvalid(str(refused)) from None
    return parse_cell(column_type, value, options), note

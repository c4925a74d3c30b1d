"""Units of measure for research-table numbers: find a quantity in an answer, convert it with Pint.

Pint's own names are accepted ("kg/ha", "t/ha", "lb/acre", "g/m²", "degC", "%", "days") plus
the spellings agronomy texts use that Pint reads differently or not at all: "lb/ac" (Pint: atto-c),
"mt/ha" (metric tons, Pint: millitonnes), "kg/10a" (per 1,000 m², Pint: per ten years), "g/m2",
"kg ha-1", "kg ha⁻¹", "lb per acre", "q/ha" (quintal, 100 kg), "℃"/"℉", "g/lfm" (per running
metre). "dt" is a decitonne (100 kg). A bushel is a volume, so "bu/acre" converts only to other
volumes per area: turning it into a mass per area needs the crop's bushel weight, and that is
refused. Plants, heads, trees, animals and seeds are counted dimensions of their own, so
"kg/plant" reads but never converts to "t/ha".
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from webapp.numbers import NUMBER_PATTERN, NumberInvalid, parse_number
from webapp.problems import Invalid

if TYPE_CHECKING:
    import pint


class UnitMismatch(Invalid):
    """Units that are unknown or cannot be converted into each other; the message is for people,
    the code says which: unit_unreadable (not a unit we read) or unit_mismatch."""

    def __init__(self, message: str, code: str = "unit_mismatch") -> None:
        super().__init__(message, code=code)


@dataclass(frozen=True)
class Quantity:
    """The first number found in a text: its value, the unit written after it, and where it is."""

    value: float
    unit: str | None
    number_text: str  # the number as written, e.g. "1,234.5"
    is_range: bool  # the number starts a range ("10-12 t/ha"); value is its first end
    start: int
    end: int  # end of the unit text, or of the number when there is no unit
    high: float | None = None  # the range's other end

    @property
    def bounds(self) -> tuple[float, float] | None:
        """(low, high) of a range, in order; None for a single number."""
        if self.high is None:
            return None
        return (min(self.value, self.high), max(self.value, self.high))


# Numbers are read by the app's one rule (webapp.numbers, lenient: answers and passages);
# this module finds them in text and reads the unit written after them.
_NUMBER = NUMBER_PATTERN
# A unit token starts with a letter or a symbol such as "%" or "°" and runs to a space or a
# punctuation mark; "t / ha", "lb per acre" and "t ha-1" join tokens into one unit. Lengths are
# bounded: a unit is short, and an answer may not be.
_UNIT_CHAR = r"[^\s,;:!?()\[\]{}\"'“”‘’]"
_UNIT_WORD = rf"(?:[%‰°℃℉µμ]|[^\W\d_]){_UNIT_CHAR}{{0,30}}(?!{_UNIT_CHAR})"
_UNIT = (
    rf"{_UNIT_WORD}"
    rf"(?:\s*/\s*{_UNIT_WORD}|\s+per\s+{_UNIT_WORD}|\s+[^\W\d_]{{1,30}}(?:-\d|⁻[¹²³])){{0,3}}"
)
# The second end of a range ("10-12 t/ha", "between 10 and 12 t/ha") is skipped so that the
# unit after it still counts.
_RANGE_END = r"\s*(?:-|–|—|to|and|bis|à)\s*(?P<high>[-+−]?\d+(?:[.,]\d+)*)"
_QUANTITY = re.compile(
    rf"(?<![^\W_])(?<!\d[.,]){_NUMBER}(?P<range>{_RANGE_END})?(?:\s*(?P<unit>{_UNIT}))?",
    re.IGNORECASE,
)
# Words that follow numbers in sentences and that Pint would read as units ("in": inch,
# "a": year, "at": technical atmosphere).
_NOT_UNITS = frozenset(
    {"a", "an", "and", "as", "at", "by", "for", "from", "in", "is", "of", "on", "or", "per", "to"}
)
_SIGNIFICANT_DIGITS = 12
_MAX_UNIT_CHARS = 100


def find_quantity(text: str) -> Quantity | None:
    """The first number in text with the unit written right after it, or None."""
    return next(quantities(text), None)


def quantities(text: str) -> Iterator[Quantity]:
    """Every number in text, in order, each with the unit written right after it (a range
    counts once)."""
    position = 0
    while (match := _QUANTITY.search(text, position)) is not None:
        quantity = _quantity(text, match)
        yield quantity
        position = max(quantity.end, match.start() + 1)


def _quantity(text: str, match: re.Match[str]) -> Quantity:
    number_end = _number_end(match)
    ranged = match.group("range") is not None
    if ranged and match.group("range").split()[0].casefold() == "and":
        # "10 and 12" is a range only after "between": "£3 and ¥4" is two amounts.
        ranged = re.search(r"between\s*$", text[: match.start()], re.IGNORECASE) is not None
        if not ranged:
            return _single(text, match, number_end)
    end = match.end("range") if ranged else number_end
    unit = match.group("unit")
    if unit is not None:
        unit = unit.rstrip(".")
        if unit.split()[0].casefold() in _NOT_UNITS:
            unit = None
        else:
            end = match.start("unit") + len(unit)
    return Quantity(
        value=_number_value(match),
        unit=unit,
        number_text=text[match.start() : number_end],
        is_range=ranged,
        start=match.start(),
        end=end,
        high=_range_end(match.group("high")),
    )


def _single(text: str, match: re.Match[str], number_end: int) -> Quantity:
    """The number of a match alone, with no range and no unit after it."""
    value = _number_value(match)
    return Quantity(value, None, text[match.start() : number_end], False, match.start(), number_end)


def _range_end(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return parse_number(text, lenient=True)
    except NumberInvalid:
        return None


def split_quantity(text: str) -> tuple[float, str | None] | None:
    """The first number in text and the unit text right after it (if any); None without a number.

    "107 lb/acre" -> (107.0, "lb/acre"); "about 2,010" -> (2010.0, None). The unit is returned as
    written ("lb per acre"); known_unit() says whether it is one.
    """
    quantity = find_quantity(text)
    return None if quantity is None else (quantity.value, quantity.unit)


def known_unit(unit: str) -> bool:
    """Whether unit names a unit this module can convert (see the module docstring)."""
    try:
        _parse(unit)
    except UnitMismatch:
        return False
    return True


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """value in from_unit expressed in to_unit, to 12 significant digits (no float noise).

    Raises UnitMismatch for an unknown unit or units of different kinds.
    """
    import pint  # loaded by _parse's registry already

    source, target = _parse(from_unit), _parse(to_unit)
    try:
        result = _registry().Quantity(value, source).to(target).magnitude
    except pint.DimensionalityError:
        if "bushel" in f"{source} {target}":
            raise UnitMismatch(
                f"{from_unit} cannot be converted to {to_unit} without the crop's bushel weight "
                "(a bushel is a volume)."
            ) from None
        raise UnitMismatch(
            f"{from_unit} ({_kind(source)}) cannot be converted to {to_unit} ({_kind(target)})."
        ) from None
    except pint.PintError as error:
        raise UnitMismatch(f"{from_unit} cannot be converted to {to_unit}: {error}") from None
    if not math.isfinite(result):
        raise UnitMismatch(f"{value} {from_unit} is out of range in {to_unit}.")
    return float(f"{result:.{_SIGNIFICANT_DIGITS}g}")


def _number_end(match: re.Match[str]) -> int:
    for group in ("exp", "eu", "dots", "lakh", "grouped", "plain"):
        if match.group(group) is not None:
            return match.end(group)
    raise AssertionError("the number pattern always matches one alternative")


def _number_value(match: re.Match[str]) -> float:
    """The matched number by the app's rule; NaN for one it refuses (too long, an exponent
    beyond its bound), which every reader of a Quantity refuses as not finite."""
    try:
        return parse_number(match.string[match.start() : _number_end(match)], lenient=True)
    except NumberInvalid:
        return math.nan


@functools.cache
def _registry() -> pint.UnitRegistry:
    # Pint is 15 MB of modules: imported by the first conversion, not by every process.
    import pint

    registry = pint.UnitRegistry()
    registry.define("decare = 1000 * meter ** 2")
    registry.define("quintal = 100 * kilogram = q")
    registry.define("@alias acre = ac")
    registry.define("@alias metric_ton = mt = MT")
    # Counted things are dimensions of their own: kg/plant is not kg/m², and no factor
    # turns one into the other (that takes a planting density).
    for thing in ("plant", "head", "tree", "animal", "seed"):
        registry.define(f"{thing} = [{thing}]")
    registry.define("@alias seed = kernel")
    registry.define("lfm = meter")  # laufender Meter: a running metre of row
    return registry


_SPELLINGS = (
    (re.compile(r"℃"), "degC"),
    (re.compile(r"℉"), "degF"),
    (re.compile(r"\s+per\s+", re.IGNORECASE), "/"),
    (re.compile(r"/\s*10\s*a\b"), "/decare"),
    (re.compile(r"\bbu\b"), "bushel"),
    (re.compile(r"\b(?:kilos?|kgs)\b"), "kg"),
    # "m2", "ha-1": an exponent written without "**" (Pint would read "m2" as a name).
    (re.compile(r"(?<=[^\W\d_])(-?[1-3])\b"), r"**\1"),
)


@functools.lru_cache(maxsize=512)
def _parse(unit: str) -> pint.Unit:
    text = unit.strip().rstrip(".")
    if len(text) > _MAX_UNIT_CHARS:
        raise UnitMismatch(
            f"{unit[:_MAX_UNIT_CHARS]!r}… is too long to be a unit.", "unit_unreadable"
        )
    if not text or not re.search(r"[^\W\d_]|[%‰°℃℉]", text):
        raise UnitMismatch(f"{unit!r} is not a unit.", "unit_unreadable")
    for pattern, replacement in _SPELLINGS:
        text = pattern.sub(replacement, text)
    try:
        return _registry().parse_units(text)
    except Exception:  # Pint raises many kinds (undefined, syntax, assertion) for odd input
        raise UnitMismatch(f"{unit!r} is not a known unit.", "unit_unreadable") from None


_DIMENSION_WORDS = (
    ("[length] ** 2", "area"),
    ("[length] ** 3", "volume"),
    ("1 / [time]", "a rate"),
    (" / ", " per "),
    ("[", ""),
    ("]", ""),
)


def _kind(unit: pint.Unit) -> str:
    """What a unit measures in words: "mass per area", "mass per plant"."""
    dimensionality = str(unit.dimensionality)
    if dimensionality == "dimensionless":
        return "a pure number"
    for written, word in _DIMENSION_WORDS:
        dimensionality = dimensionality.replace(written, word)
    return dimensionality

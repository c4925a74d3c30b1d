"""One reading of the numbers people and models write, for the whole app.

The rule, kept simple so that it can be explained:
- Bounded first: at most MAX_CHARS characters, an exponent ("1.5e3") of at most ±MAX_EXPONENT,
  and a finite result. NaN, infinities and "1e1000000" are refused before anything is computed.
- A dot is a decimal point ("3.5"; a single "1.234" is one point two three four).
- A comma is a decimal comma ("3,5" is 3.5, "0,125" is 0.125, "1234,5" is 1234.5) unless it
  follows a leading group of 1-3 digits and is followed by exactly three digits ("1,000",
  "12,500"): that may group thousands. Strict reading (what a person types into a form, a cell,
  a CSV file) refuses such a number as ambiguous; lenient reading (a model's answer, a passage)
  takes it as thousands.
- Spaces (normal, no-break, thin) between groups of three digits group thousands in both
  ("12 500", "1 000,5").
- Lenient reading also takes "1,234.5", "1.234,5" (dots before a decimal comma), "1.234.567",
  apostrophes ("1'234"), Indian grouping ("1,00,000").
- "-0" is 0. A JSON number is taken as it is, if finite (a boolean is not a number).
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal

from webapp.problems import Invalid

MAX_CHARS = 64
MAX_EXPONENT = 308  # a float's own range

# The lenient forms, also used to find numbers inside text (webapp.units): a group separator
# (",", "'", "’", a normal, no-break or thin space) only between a leading group of 1-3 digits
# (not starting with 0: "0,125" is 0.125) and groups of exactly 3; dots group only in "1.234,5"
# or with two or more groups; a comma before anything but exactly 3 digits is a decimal comma.
NUMBER_PATTERN = (
    r"(?P<sign>[-+−])?"
    r"(?:"
    r"(?P<eu>\d{1,3}(?:\.\d{3})+,(?!\d{3}(?!\d))\d+)"
    r"|(?P<dots>\d{1,3}(?:\.\d{3}){2,})(?![\d.,]\d)"
    r"|(?P<lakh>\d{1,2}(?:,\d{2})+,\d{3}(?!\d)(?:\.\d+)?)"
    r"|(?P<grouped>[1-9]\d{0,2}(?P<sep>[,'’\x20\u00a0\u2009\u202f])\d{3}(?:(?P=sep)\d{3})*(?!\d)"
    r"(?:[.,]\d+)?)"
    r"|(?P<plain>0,\d+|\d+(?:\.\d+|,(?!\d{3}(?!\d))\d+)?|\.\d+)"
    r")"
    r"(?P<exp>[eE][-+]?\d+)?"
)
_LENIENT = re.compile(NUMBER_PATTERN)
_SPACES = "\x20\u00a0\u2009\u202f"
_STRICT = re.compile(
    rf"(?P<sign>[-+−])?"
    rf"(?P<whole>\d{{1,3}}(?:[{_SPACES}]\d{{3}})+|\d*)"
    rf"(?:(?P<mark>[.,])(?P<fraction>\d*))?"
    rf"(?P<exp>[eE][-+]?\d+)?"
)
_NOT_FINITE = frozenset({"nan", "inf", "infinity", "-inf", "+inf", "-infinity", "+infinity"})


class NumberInvalid(Invalid):
    """Text that is not a number by the rule above; the message says why, for people.

    code: not_a_number, number_ambiguous or number_out_of_range."""

    def __init__(self, message: str, code: str = "not_a_number") -> None:
        super().__init__(message, code=code)


def parse_number(text: object, *, lenient: bool = False) -> float:
    """The number text stands for, by the rule in this module's docstring; NumberInvalid
    otherwise (blank text included: the caller decides what an empty value means)."""
    if isinstance(text, bool):
        raise NumberInvalid(f"“{text}” is not a number.")
    if isinstance(text, int | float | Decimal):
        return _finite(text, None)
    if not isinstance(text, str):
        raise NumberInvalid("Give a number.")
    written = text.strip()
    if not written:
        raise NumberInvalid("Give a number.")
    if len(written) > MAX_CHARS:
        raise NumberInvalid(
            f"“{written[:20]}…” is longer than {MAX_CHARS} characters: not a number.",
            "number_out_of_range",
        )
    if written.casefold() in _NOT_FINITE:
        raise NumberInvalid("Give a finite number.", "number_out_of_range")
    lenient_match = _LENIENT.fullmatch(written) if lenient else None
    digits = _lenient_digits(lenient_match) if lenient_match else _strict_digits(written)
    return _finite(Decimal(digits), written)


def _finite(number: int | float | Decimal, written: str | None) -> float:
    """number as a float, refused when it is not finite or beyond the bound; written is the
    text it was read from (None for a JSON number, whose digits may be too many to show)."""
    beyond = isinstance(number, Decimal) and number.is_finite() and number != 0
    if beyond and abs(number.adjusted()) > MAX_EXPONENT:
        raise NumberInvalid(_out_of_range(written), "number_out_of_range")
    try:
        value = float(number)
    except OverflowError:  # an int beyond what a float holds
        raise NumberInvalid(_out_of_range(written), "number_out_of_range") from None
    if not math.isfinite(value):
        raise NumberInvalid("Give a finite number.", "number_out_of_range")
    return value + 0.0  # -0.0 is 0


def _out_of_range(written: str | None) -> str:
    if written is None:
        return f"The number is out of range (beyond ±1e{MAX_EXPONENT})."
    return f"“{written}” is out of range: the exponent may be at most {MAX_EXPONENT}."


def _strict_digits(written: str) -> str:
    match = _STRICT.fullmatch(written)
    if match is None or not (match.group("whole") or match.group("fraction")):
        raise NumberInvalid(f"“{written}” is not a number.")
    sign = "-" if match.group("sign") in ("-", "−") else ""
    whole = re.sub(f"[{_SPACES}]", "", match.group("whole")) or "0"
    fraction = match.group("fraction") or ""
    exponent = _exponent(match.group("exp"), written)
    if (
        match.group("mark") == ","
        and len(fraction) == 3
        and whole == match.group("whole")
        and len(whole) <= 3
        and not whole.startswith("0")
    ):
        raise NumberInvalid(
            f"“{written}” is ambiguous: write {sign}{whole}{fraction} or {sign}{whole}.{fraction}.",
            "number_ambiguous",
        )
    return f"{sign}{whole}.{fraction or '0'}{exponent}"


def _lenient_digits(match: re.Match[str]) -> str:
    if match.group("eu"):
        digits = match.group("eu").replace(".", "").replace(",", ".")
    elif match.group("dots"):
        digits = match.group("dots").replace(".", "")
    elif match.group("lakh"):
        digits = match.group("lakh").replace(",", "")
    elif match.group("grouped"):
        digits = match.group("grouped").replace(match.group("sep"), "").replace(",", ".")
    else:
        digits = match.group("plain").replace(",", ".")
    sign = "-" if match.group("sign") in ("-", "−") else ""
    return sign + digits + _exponent(match.group("exp"), match.group(0))


def _exponent(exp: str | None, written: str) -> str:
    """The exponent as written, refused beyond ±MAX_EXPONENT before any arithmetic."""
    if not exp:
        return ""
    if abs(int(exp[1:])) > MAX_EXPONENT:  # int() of at most MAX_CHARS digits is cheap
        raise NumberInvalid(_out_of_range(written), "number_out_of_range")
    return exp


def format_number(value: object) -> object:
    """30.0 reads as 30 on screen, whichever database stored it."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


DISPLAY_FIGURES = 3


def display_number(value: object, figures: int = DISPLAY_FIGURES) -> object:
    """A number as people read it on a page: 3 significant figures (5.942857143 reads 5.94,
    0.3333333333 reads 0.333, 0.000123456 reads 0.000123), and from 1000 on the whole number
    (12345.6 reads 12346), never in an exponent's notation. Only what is shown: the value kept,
    exported and edited stays as it is. What is not a number (None, text, a boolean) is
    returned as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return value
    number = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    if not number.is_finite():
        return value
    if abs(number) >= 1000:
        shown = number.quantize(Decimal(1), rounding=ROUND_HALF_UP)
    elif number == 0:
        return "0"
    else:
        step = Decimal(1).scaleb(number.adjusted() - figures + 1)
        shown = number.quantize(step, rounding=ROUND_HALF_UP)
        if abs(shown) >= 1000:  # 999.6 rounds up into the whole numbers
            shown = shown.quantize(Decimal(1))
    text = format(shown, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text

"""Dates as project documents write them. 06/02/2023 is 6 February in a document written
day-first (British or European style) and June 2 in one written month-first; a document that
gives no sign is never resolved silently: the reading says it is ambiguous and a person picks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from enum import StrEnum


class DateStyle(StrEnum):
    day_first = "day-first"
    month_first = "month-first"


MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan", "janvier", "januar", "enero"),
            ("february", "feb", "février", "fevrier", "februar", "febrero"),
            ("march", "mar", "mars", "märz", "marz", "marzo"),
            ("april", "apr", "avril", "abril"),
            ("may", "mai", "mayo"),
            ("june", "jun", "juin", "juni", "junio"),
            ("july", "jul", "juillet", "juli", "julio"),
            ("august", "aug", "août", "aout", "agosto"),
            ("september", "sep", "sept", "septembre", "septiembre"),
            ("october", "oct", "octobre", "oktober", "octubre"),
            ("november", "nov", "novembre", "noviembre"),
            ("december", "dec", "décembre", "decembre", "dezember", "diciembre"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = "|".join(sorted(map(re.escape, MONTHS), key=len, reverse=True))
ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
NUMERIC = re.compile(r"\b(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{4})\b")
DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th|er)?\.?\s+(?:of\s+)?({_MONTH})\.?,?\s+(\d{{4}})\b", re.I
)
MONTH_DAY = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
# Spellings only British (and Commonwealth) English uses: a sign of day-first dates.
BRITISH = re.compile(
    r"\b(organisation|organise[ds]?|programme|colour|behaviour|licence|centre|metres?|"
    r"favour|labour|analyse[ds]?|fertiliser)s?\b",
    re.I,
)
AMERICAN = re.compile(
    r"\b(organization|organize[ds]?|program|color|behavior|license|center|meters?|"
    r"favor|labor|analyze[ds]?|fertilizer)s?\b",
    re.I,
)


def date_style(text: str) -> DateStyle | None:
    """How the document writes dates, from the signs it gives: numeric dates that can only be
    read one way (25/06/2023), written dates ("2 June 2023" or "June 2, 2023"), then British or
    American spelling. None when it gives no sign, or signs that disagree."""
    day_first = month_first = 0
    for first, second, _year in NUMERIC.findall(text):
        if int(first) > 12 >= int(second):
            day_first += 1
        elif int(second) > 12 >= int(first):
            month_first += 1
    day_first += len(DAY_MONTH.findall(text))
    month_first += len(MONTH_DAY.findall(text))
    if not (day_first or month_first):
        day_first, month_first = len(BRITISH.findall(text)), len(AMERICAN.findall(text))
    if day_first and not month_first:
        return DateStyle.day_first
    if month_first and not day_first:
        return DateStyle.month_first
    return None


@dataclass(frozen=True)
class DateReading:
    """A date read from text: its value, or why there is none (problem); ambiguous when it
    could be two dates and the document does not say which (both are in options)."""

    value: date | None = None
    problem: str | None = None
    options: tuple[date, ...] = ()

    @property
    def ambiguous(self) -> bool:
        return len(self.options) > 1


def years_after(day: date, years: int) -> date:
    """The same day so many years on; 29 February becomes 28 February in a common year."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28)


def _make(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def dates_in(text: str, style: DateStyle | None = None) -> list[DateReading]:
    """Every whole date a text writes, each read in the document's style."""
    return [
        read_date(match.group(), style)
        for pattern in (ISO, NUMERIC, DAY_MONTH, MONTH_DAY)
        for match in pattern.finditer(text)
    ]


def read_date(raw: str, style: DateStyle | None = None) -> DateReading:
    """The one date raw states, read in the document's style; a month and year alone, two
    dates, or no date at all is a problem, not a guess."""
    text = (raw or "").strip()
    if match := ISO.fullmatch(text):
        value = _make(*map(int, match.groups()))
        return DateReading(value) if value else DateReading(problem=f"“{text}” is not a date.")
    if match := DAY_MONTH.fullmatch(text):
        day, month, year = match.groups()
        value = _make(int(year), MONTHS[month.lower()], int(day))
        return DateReading(value) if value else DateReading(problem=f"“{text}” is not a date.")
    if match := MONTH_DAY.fullmatch(text):
        month, day, year = match.groups()
        value = _make(int(year), MONTHS[month.lower()], int(day))
        return DateReading(value) if value else DateReading(problem=f"“{text}” is not a date.")
    if match := NUMERIC.fullmatch(text):
        first, second, year = map(int, match.groups())
        as_day_first = _make(year, second, first)
        as_month_first = _make(year, first, second)
        if style == DateStyle.day_first and as_day_first:
            return DateReading(as_day_first)
        if style == DateStyle.month_first and as_month_first:
            return DateReading(as_month_first)
        options = tuple(d for d in dict.fromkeys([as_day_first, as_month_first]) if d)
        if len(options) == 1:
            return DateReading(options[0])
        if not options:
            return DateReading(problem=f"“{text}” is not a date.")
        return DateReading(
            problem=f"“{text}” may be {options[0]:%d %B %Y} or {options[1]:%d %B %Y}, and the "
            "document does not show which way it writes dates: say which.",
            options=options,
        )
    return DateReading(problem=f"“{text}” is not a whole date (day, month and year).")

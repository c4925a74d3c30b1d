"""Cross-validation of a review's structured fields: each value read and checked on its own
(structural), then the values documents give for one field compared (across documents), then
the arithmetic reports carry. Plain functions over FieldValues, each found by a person or a
model in a snippet of a document page; nothing here re-reads document text to find a value —
that is how a year became a project ID in the tool this replaces."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import Any

from webapp.registry.checklist import FIELD_LABELS, FIGURE_FIELDS, Limit, StructuredField
from webapp.registry.dates import DateStyle, read_date, years_after
from webapp.registry.names import LEGAL_FORMS, NameMatch, compare_names
from webapp.units import Quantity, UnitMismatch, convert, quantities

F = StructuredField
# Project IDs as registries write them: a credit class and a number ("C06-4997"), or a number,
# the farm's name and a two-digit year ("123456Example23", "2023ABC01"). Another shape may
# still be an ID: a person checks it.
PROJECT_ID_SHAPES = (re.compile(r"[A-Z]{1,4}\d{2}-\d+"), re.compile(r"\d{3,}[^\W\d_]+\d{2}"))
# Words around an ID that are not the ID ("Project ID 2023" is a year).
ID_WORDS = {"id", "ids", "identifier", "no", "nr", "number", "ref", "reference", "registry", "code"}
# Words that name a role or hold a place, not someone ("the landowner(s)", "Unknown Owner",
# "TBC"), with the words that join them ("Landowner / Farmer") and legal forms ("Ltd"), and
# the words of the headings an owner is found under, or of a tenure ("Land tenure", "Title
# deed", "Freehold": a small model quoted them as owners). An owner written only in these
# words names no one; any other word makes it a name ("Farmer Giles", "John Farmer").
ROLE_WORDS = LEGAL_FORMS | {
    "project", "this", "land", "landowner", "landholder", "owner", "proponent", "developer",
    "farmer", "farm", "company", "applicant", "grower", "lessor", "lessee", "tenant", "holder",
    "steward", "stewards", "proprietor", "registered",
    "unknown", "none", "tbd", "tba", "tbc", "not", "stated", "applicable", "known",
    "given", "name", "of", "and", "or", "s",
    "tenure", "title", "deed", "details", "detail", "information", "section", "ownership",
    "freehold", "leasehold", "lease", "owned", "leased", "rights",
}  # fmt: skip
PERCENT_FIELDS = {F.leakage_percentage, F.buffer_pool_percentage}
PERIOD_FIELDS = {F.crediting_period_years, F.permanence_period_years}
DATE_FIELDS = {F.project_start_date, F.crediting_period_start, F.crediting_period_end}
END_DATES = {F.crediting_period_end}
EARLIEST_YEAR = 1990
START_YEARS_AHEAD = 2
END_YEARS_AHEAD = 50
LARGEST_AREA_HA = 1_000_000
SAME_DATE_DAYS = 120
SAME_NUMBER_SHARE = 0.05
SAME_PERIOD_YEARS = 0.1  # of a year: a period's stated length against its start and end
ARITHMETIC_TOLERANCE = 0.01  # reports round: 1 % of the larger figure
# A figure's units: tonnes of CO2e (a credit is one tonne). "tons" may be short tons: not read.
FIGURE_UNITS = {"t", "tco2e", "tco2-e", "tco₂e", "tonne", "tonnes", "credit", "credits"}
PERCENT_UNITS = {"%", "percent", "per cent"}
YEAR_UNITS = {"year", "years", "yr", "yrs"}
# A number right after one of these, or glued to letters ("FAO-56", "REQ-012"), refers to
# something: it is never a figure.
REFERENCE = re.compile(
    r"(?:\b(?:table|tab|section|sect|§|figure|fig|annex|appendix|phase|page|pp?|chapter|ch|"
    r"req|requirement|step|item|no|number|part|article|art|version|v)\.?\s*#?\s*|[^\W\d_]-)$",
    re.I,
)
# Forms of tenure and the words that say each: "100 % owned" and "Freehold" are one tenure,
# "owned" and "leasehold" two. A word up to three words after "not", "no" or "never" in the
# same clause ("not subject to any lease") is denied, so it does not count.
TENURES = {
    "owned": r"own(?:s|ed|er|ers|ership)|freehold(?:s|er|ers)?|fee\s+simple",
    "leased": r"(?:sub-?)?leas(?:e|es|ed|ing)|leasehold(?:s|er|ers)?|lessees?|"
    r"tenan(?:t|ts|cy|cies)|rent(?:s|ed|al)?",
    "licensed": r"licen[cs](?:e|es|ed)",
    "easement": r"easements?",
}
TENURE_WORDS = {tenure: re.compile(rf"\b(?:{words})\b", re.I) for tenure, words in TENURES.items()}
JOINT = re.compile(r"\s+(?:and|&)\s+|\s*;\s*", re.I)  # "A and B": joint owners
NEGATION = re.compile(r"\b(?:not|no|never|nor|without)\s+(?:[\w-]+\s+){0,3}$", re.I)
UNIT_WORDS = {
    **dict.fromkeys(PERCENT_FIELDS, "a percentage"),
    **dict.fromkeys(PERIOD_FIELDS, "a number of years"),
    **dict.fromkeys(FIGURE_FIELDS, "a figure in tonnes CO2e"),
}
# Figures that cannot be below zero (a SOC change or a net balance can).
NEVER_NEGATIVE = FIGURE_FIELDS - {F.soc_change_tco2e, F.net_reductions_tco2e}
NET_FIGURES = {
    "soc_change": F.soc_change_tco2e,
    "emissions": F.project_emissions_tco2e,
    "leakage": F.leakage_tco2e,
    "net": F.net_reductions_tco2e,
}


class Status(StrEnum):
    passed = "pass"
    warning = "warning"
    failed = "fail"


@dataclass(frozen=True)
class FieldValue:
    """A structured field as a snippet gives it: the value as written (text or number), the
    document (its name, and its id when known) and page it is on, and how that document writes
    dates."""

    field: StructuredField
    value: Any
    document: str
    page: int | None = None
    date_style: DateStyle | None = None
    document_id: int | None = None
    # From a land-registry copy (or another land-tenure paper): its owners are the land's
    # proprietors, one title's not another's.
    on_title: bool = False

    @property
    def source(self) -> int | str:
        """What tells its document from another: the id, else (a value without one) the name."""
        return self.document_id or self.document


@dataclass(frozen=True)
class Check:
    check: str
    field: StructuredField | None
    status: Status
    message: str
    values: dict[str, Any] = field(default_factory=dict)  # document → value as read

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "field": self.field.value if self.field else None,
            "status": self.status.value,
            "values": self.values,
            "message": self.message,
        }


def _role_word(word: str) -> bool:
    return word in ROLE_WORDS or (word.endswith("s") and word[:-1] in ROLE_WORDS)


def is_generic_owner(name: str) -> bool:
    """Whether an owner's name is a role or a placeholder, not someone's name: every word of
    it is a role or placeholder word, plurals included ("N/A" and a name without words too)."""
    plain = " ".join(re.findall(r"[^\W_]+", name.casefold()))
    return plain in {"", "n a", "na"} or all(_role_word(w) for w in plain.split())


def project_id_problem(written: str) -> tuple[str | None, str | None]:
    """What is wrong with a project ID: a year or words without a number are no ID (fail); an
    ID in none of the registry's shapes may still be one, so a person checks it (warning)."""
    words = re.findall(r"[^\W_]+", written.casefold())
    rest = [w for w in words if not _role_word(w) and w not in ID_WORDS]
    if len(rest) == 1 and re.fullmatch(r"(19|20)\d{2}", rest[0]):
        return f"“{written}” is a year, not a project ID.", None
    if not any(c.isdigit() for c in written):
        return f"“{written}” names no project ID: give the registry's ID.", None
    if not any(shape.fullmatch(written) for shape in PROJECT_ID_SHAPES):
        shapes = "C06-4997 or 123456Example23"
        return None, f"“{written}” is not in a shape the registry writes ({shapes}): check it."
    return None, None


def _alphanumeric(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).casefold()


def tenures(text: str) -> frozenset[str]:
    """The forms of tenure a text says ("owned", "leased", …), none it denies."""
    return frozenset(
        tenure
        for tenure, pattern in TENURE_WORDS.items()
        if any(not NEGATION.search(text[: m.start()]) for m in pattern.finditer(text))
    )


def where(value: FieldValue) -> str:
    return f"{value.document}, p. {value.page}" if value.page else value.document


def label(name: StructuredField) -> str:
    return FIELD_LABELS[name]


# Reading one value: (what it means, or None) and the problem with it, if any.


def _unit(text: str, found: Quantity) -> str:
    """The unit written after a number, "per cent" and "10-year" included."""
    if found.unit:
        return found.unit.strip().lower()
    after = text[found.end :]
    if re.match(r"\s*per\s*cent\b", after, re.I):
        return "per cent"
    return "year" if re.match(r"-years?\b", after, re.I) else ""


def _in_unit(name: StructuredField, number: float, unit: str) -> float | None:
    """The number in the field's unit (hectares for an area), or None in another unit."""
    if name in PERCENT_FIELDS:
        return number if unit in PERCENT_UNITS else None
    if name in PERIOD_FIELDS:
        return number if unit in YEAR_UNITS else None
    if name in FIGURE_FIELDS:
        return number if unit in FIGURE_UNITS else None
    try:
        return convert(number, unit, "ha")
    except UnitMismatch:
        return None


def _is_year(found: Quantity) -> bool:
    """A year is written in four plain digits: "2,000" or "2000.0" is a number, not a year."""
    return found.number_text.isdigit() and EARLIEST_YEAR - 90 <= found.value <= 2100


def read_number(value: FieldValue) -> tuple[float | None, str | None]:
    """A number of the field's unit: a percentage, years, t CO2e, or hectares (acres and
    other areas converted). The figure is the one written with that unit ("Section 5.4: 20%"
    is 20 %); a lone number without a unit is taken in the field's unit, unless it is a year
    standing for an area, a share or a period. No figure, several different ones, a range or
    a word is a problem the reviewer settles, never a pick."""
    raw = value.value
    what = UNIT_WORDS.get(value.field, "an area in hectares")
    if isinstance(raw, bool):
        return None, f"{label(value.field)}: “{raw}” is not a number."
    if isinstance(raw, int | float):
        if not math.isfinite(raw):
            return None, f"{label(value.field)}: “{raw}” is not a number."
        return float(raw), None
    text = str(raw)
    numbers = [q for q in quantities(text) if math.isfinite(q.value)]
    found = [q for q in numbers if _unit(text, q) or not REFERENCE.search(text[: q.start])]
    if not numbers:
        return None, f"{label(value.field)}: “{raw}” states no number."
    if not found:
        return None, f"{label(value.field)}: “{raw}” is a reference, not {what}."
    given = [(q, _in_unit(value.field, q.value, _unit(text, q))) for q in found if _unit(text, q)]
    figures = [(q, number) for q, number in given if number is not None]
    if not figures:
        if len(found) > 1:
            several = f"“{raw}” gives several numbers, none of them {what}"
            return None, f"{label(value.field)}: {several}: enter the figure."
        if given:
            return None, f"{label(value.field)}: “{raw}” is not {what}."
        (alone,) = found
        if value.field not in FIGURE_FIELDS and _is_year(alone):
            return None, f"{label(value.field)}: “{raw}” is a year, not {what}."
        figures = [(alone, alone.value)]
    if any(q.is_range for q, _number in figures):
        return None, f"{label(value.field)}: “{raw}” is a range, not one figure."
    if any(re.search(r"\d\s*/\s*$", text[: q.start]) for q, _number in figures):
        return None, f"{label(value.field)}: “{raw}” is a fraction: write it as one number."
    first = figures[0][1]
    if any(not _close(first, number) for _q, number in figures[1:]):
        written = " and ".join(f"“{text[q.start : q.end]}”" for q, _number in figures)
        return None, f"{label(value.field)}: “{raw}” states {written}: say which."
    return first, None  # the same figure, maybe in two units ("250 acres (101.2 ha)")


def read_value(value: FieldValue) -> tuple[Any, str | None, str | None]:
    """The value as it is compared (number, date, or text), a problem that makes it unusable
    (fail), and a doubt a person must settle (warning)."""
    if value.field in DATE_FIELDS:
        reading = read_date(str(value.value), value.date_style)
        if reading.ambiguous:
            return None, None, f"{label(value.field)} in {where(value)}: {reading.problem}"
        return reading.value, reading.problem, None
    if value.field in PERCENT_FIELDS | PERIOD_FIELDS | FIGURE_FIELDS | {F.area_hectares}:
        number, problem = read_number(value)
        return number, problem, None
    text = str(value.value).strip() if value.value is not None else ""
    return text or None, None if text else f"{label(value.field)} is empty.", None


def structural(value: FieldValue, today: date) -> list[Check]:
    """The checks of one value on its own."""
    read, problem, doubt = read_value(value)
    name = f"{value.field.value}_valid"
    shown = {where(value): value.value}
    if doubt:
        return [Check(name, value.field, Status.warning, doubt, shown)]
    if problem:
        return [Check(name, value.field, Status.failed, f"{problem} ({where(value)})", shown)]
    fail = warn = None
    if value.field == F.project_id:
        fail, warn = project_id_problem(read)
    elif value.field == F.owner_name:
        if is_generic_owner(read):
            fail = f"“{read}” names no one: give the owner's name."
    elif value.field == F.tenure_type and not tenures(read):
        # "Land tenure", read from a heading, is the subject, not a tenure.
        fail = (
            f"“{read}” names no form of tenure (owned or freehold, leased or tenancy, "
            "licence, easement)."
        )
    elif value.field in PERCENT_FIELDS and not 0 <= read <= 100:
        fail = f"{read:g} % is not a percentage (0–100)."
    elif value.field in PERIOD_FIELDS and not 1 <= read <= 100:
        fail = f"{read:g} years is outside 1–100 years."
    elif value.field in NEVER_NEGATIVE and read < 0:
        fail = f"{label(value.field)} cannot be below zero ({read:g})."
    elif value.field == F.area_hectares:
        if read <= 0:
            fail = f"An area of {read:g} ha is not an area."
        elif read > LARGEST_AREA_HA:
            warn = f"{read:,.0f} ha is more than {LARGEST_AREA_HA:,} ha: check the unit."
    elif value.field in DATE_FIELDS:
        years = END_YEARS_AHEAD if value.field in END_DATES else START_YEARS_AHEAD
        latest = years_after(today, years)
        if read.year < EARLIEST_YEAR:
            fail = f"{read:%d %B %Y} is before {EARLIEST_YEAR}."
        elif read > latest:
            fail = f"{read:%d %B %Y} is more than {years} years ahead."
    if fail:
        return [Check(name, value.field, Status.failed, f"{fail} ({where(value)})", shown)]
    if warn:
        return [Check(name, value.field, Status.warning, f"{warn} ({where(value)})", shown)]
    return [
        Check(
            name,
            value.field,
            Status.passed,
            f"{label(value.field)} is valid ({where(value)}).",
            shown,
        )
    ]


def _agree(name: StructuredField, a: Any, b: Any) -> tuple[Status, str]:
    if isinstance(a, date):
        days = abs((a - b).days)
        if a != b and (a.year, a.month, a.day) == (b.year, b.day, b.month):
            # Near enough to pass, but one of them is most likely the other read the wrong way.
            return Status.failed, f"{a:%d %B %Y} and {b:%d %B %Y} have day and month swapped"
        if days <= SAME_DATE_DAYS:
            return Status.passed, f"within {days} days"
        return Status.failed, f"{days} days apart (more than {SAME_DATE_DAYS})"
    if isinstance(a, float):
        spread = abs(a - b) / max(abs(a), abs(b)) if a or b else 0
        if spread <= SAME_NUMBER_SHARE:
            return Status.passed, f"within {spread:.1%}"
        return Status.failed, f"{spread:.0%} apart (more than {SAME_NUMBER_SHARE:.0%})"
    if name == F.owner_name:
        match = compare_names(a, b)
        if match == NameMatch.same:
            return Status.passed, "the same name"
        if match == NameMatch.probably:
            return Status.warning, f"“{a}” and “{b}” may be one person: confirm"
        return Status.failed, f"“{a}” and “{b}” are different people"
    if name == F.tenure_type and (said_a := tenures(a)) and (said_b := tenures(b)):
        if said_a == said_b:
            return Status.passed, f"the same tenure ({', '.join(sorted(said_a))})"
        if said_a & said_b:
            return Status.warning, f"“{a}” and “{b}” agree only in part: confirm"
        return Status.failed, f"“{a}” and “{b}” are different tenures"
    same = _same_key(name, a) == _same_key(name, b)
    return (Status.passed, "the same") if same else (Status.failed, f"“{a}” and “{b}” differ")


def _same_key(name: StructuredField, read: Any) -> Any:
    """What values of a field are told apart by: one ID however it is spaced or dashed
    ("C06-4997", "C06 4997"), one tenure in any words ("Freehold", "owned"), one text in any
    case."""
    if name == F.project_id:
        return _alphanumeric(read)
    if name == F.tenure_type and (said := tenures(read)):
        return said
    return read.casefold() if isinstance(read, str) else read


def _pairs(name: StructuredField, found: list[tuple[Any, FieldValue]]) -> tuple[Status, str]:
    """Every value against every other: the worst result, and what disagrees (or, when all
    agree, how the first value compares with each other one)."""
    documents = Counter(value.source for _read, value in found)

    def named(value: FieldValue) -> str:
        return where(value) if documents[value.source] > 1 else value.document

    worst, agreeing, disagreeing = Status.passed, [], []
    for i, (a, first) in enumerate(found):
        for b, other in found[i + 1 :]:
            status, words = _agree(name, a, b)
            said = f"{named(first)} and {named(other)}: {words}"
            if status != Status.passed:
                disagreeing.append(said)
            elif i == 0:
                agreeing.append(said)
            if status == Status.failed or (status == Status.warning and worst == Status.passed):
                worst = status
    return worst, "; ".join(disagreeing or agreeing)


def across(values: Iterable[FieldValue]) -> list[Check]:
    """For each field stated twice or more: does every value agree with every other (dates
    within 120 days, but never with day and month swapped; numbers within 5 %; owners by name;
    project IDs without their spacing and dashes; tenure by meaning; other text equal)? Every
    value counts, so a deed naming two owners, or a report giving two areas, is compared too.
    `values` of a check: each document's value as written, several joined by "; "."""
    by_field: dict[StructuredField, dict[tuple[int | str, Any], tuple[Any, FieldValue]]] = {}
    for value in values:
        read, problem, doubt = read_value(value)
        if read is not None and not problem and not doubt:
            same = _same_key(value.field, read)
            by_field.setdefault(value.field, {}).setdefault((value.source, same), (read, value))
    checks = []
    for name, distinct in by_field.items():
        found = list(distinct.values())
        if name == F.owner_name and any(value.on_title for _read, value in found):
            checks += proprietors(found)
            continue
        if len(found) < 2:
            continue
        worst, said = _pairs(name, found)
        shown = _by_document(value for _read, value in found)
        message = f"{label(name)} across documents — {said}."
        checks.append(Check(f"{name.value}_consistent", name, worst, message, shown))
    return checks


def _by_document(values: Iterable[FieldValue]) -> dict[str, Any]:
    """Each document's values as written (a check's `values`), several joined by "; "."""
    written: dict[str, list[Any]] = {}
    for value in values:
        written.setdefault(value.document, []).append(value.value)
    return {
        document: given[0] if len(given) == 1 else "; ".join(map(str, given))
        for document, given in written.items()
    }


def restates(name: StructuredField, old: str, new: str) -> bool:
    """Whether a newer value of a field from one document says what its older one said, in
    other words (so it replaces it): the same person ("N. Denman" for "Nicholas Denman"), the
    same tenure; else the same text in any case."""
    if name == F.owner_name:
        return compare_names(old, new) != NameMatch.different
    if name == F.tenure_type and (said := tenures(old)):
        return said == tenures(new)
    return old.casefold().split() == new.casefold().split()


def people(name: str) -> list[str]:
    """The people (or companies) an owner's value names: "A and B", "A & B", "A; B"."""
    return [part for part in JOINT.split(name) if part.strip()] or [name]


def proprietors(found: list[tuple[Any, FieldValue]]) -> list[Check]:
    """Each document's stated owners against the set of proprietors the land-registry copies
    name: one check per document, each of its owners matched to a proprietor (the pairs named
    with their pages; `values`: that document's and the titles'); a title naming other
    proprietors than another title is no contradiction (a farm of several titles, joint
    proprietors)."""
    titles = [(person, value) for read, value in found if value.on_title for person in people(read)]
    listed = ", ".join(dict.fromkeys(person for person, _value in titles))
    by_document: dict[int | str, list[tuple[str, FieldValue]]] = {}
    for read, value in found:
        if not value.on_title:
            by_document.setdefault(value.source, []).extend((p, value) for p in people(read))
    checks = []
    for stated in by_document.values():
        status, said = Status.passed, []
        for person, value in stated:
            matches = [(compare_names(person, p), p, title) for p, title in titles]
            same = [(p, title) for match, p, title in matches if match == NameMatch.same]
            probable = [(p, title) for match, p, title in matches if match == NameMatch.probably]
            if same or probable:
                other, title = (same or probable)[0]
                more = len(same or probable) - 1
                also = f" and {more} more" if more else ""
                words = "the same name" if same else "may be one person: confirm"
                said.append(
                    f"“{person}” ({where(value)}) and “{other}” ({where(title)}{also}): {words}"
                )
                if not same and status == Status.passed:
                    status = Status.warning
            else:
                none = f"is none of the proprietors on the land-registry copies ({listed})"
                said.append(f"“{person}” ({where(value)}) {none}: different people")
                status = Status.failed
        shown = _by_document(dict.fromkeys(v for _p, v in [*stated, *titles]))
        message = f"Owner against the land-registry copies — {'; '.join(said)}."
        checks.append(Check("owner_name_consistent", F.owner_name, status, message, shown))
    return checks


def presence(values: Iterable[FieldValue]) -> list[Check]:
    """The owner and the project start date must be stated somewhere: an empty value or a
    role ("the project owner") states nothing."""
    given = {
        v.field
        for v in values
        if v.value is not None
        and str(v.value).strip()
        and not (v.field == F.owner_name and is_generic_owner(str(v.value)))
    }
    return [
        Check(f"{name.value}_present", name, Status.passed, f"{label(name)} is stated.")
        if name in given
        else Check(
            f"{name.value}_present",
            name,
            Status.failed,
            f"No {label(name).lower()} is entered yet, nor read by the model from a passage: "
            "it needs reviewer input.",
        )
        for name in (F.owner_name, F.project_start_date)
    ]


def validate(
    values: Iterable[FieldValue], today: date | None = None, limits: Iterable[Limit] = ()
) -> list[Check]:
    """Every check over a review's structured fields: presence, each value, across documents,
    the methodology's figures, and the arithmetic of each report's figures."""
    values = list(values)
    today = today or date.today()
    checks = presence(values)
    for value in values:
        checks += structural(value, today)
    periods = crediting_periods(values)
    checks += across(values) + spans(periods) + methodology(values, periods, limits)
    return checks + arithmetic(values)


@dataclass(frozen=True)
class Period:
    """A crediting period as one document states it: its start and end, and its length in
    years when that document states one too."""

    start: date
    first: FieldValue  # the value its start is read from
    end: date
    last: FieldValue
    stated: tuple[float, FieldValue] | None

    @property
    def years(self) -> float:
        """Its length, the last day included (1 January 2023 – 31 December 2032: 10 years)."""
        return ((self.end - self.start).days + 1) / 365.25

    @property
    def said(self) -> str:
        return f"{self.start:%d %B %Y} to {self.end:%d %B %Y} in {self.first.document}"

    @property
    def shown(self) -> dict[str, Any]:
        given = [self.first, self.last, *([self.stated[1]] if self.stated else [])]
        return {where(v): v.value for v in given}


def crediting_periods(values: Iterable[FieldValue]) -> list[Period]:
    """Each document's crediting period, where it states both its start and its end."""
    by_document: dict[int | str, dict[StructuredField, tuple[Any, FieldValue]]] = {}
    for value in values:
        if value.field in {F.crediting_period_start, F.crediting_period_end}:
            read, problem, doubt = read_value(value)
        elif value.field == F.crediting_period_years:
            (read, problem), doubt = read_number(value), None
        else:
            continue
        if read is not None and not problem and not doubt:
            by_document.setdefault(value.source, {}).setdefault(value.field, (read, value))
    return [
        Period(
            *stated[F.crediting_period_start],
            *stated[F.crediting_period_end],
            stated.get(F.crediting_period_years),
        )
        for stated in by_document.values()
        if {F.crediting_period_start, F.crediting_period_end} <= stated.keys()
    ]


def spans(periods: Iterable[Period]) -> list[Check]:
    """A crediting period's stated length against its own start and end ("2023–2040" is 17
    years, not "10 years"), and an end before its start."""
    checks = []
    for period in periods:
        if period.end <= period.start:
            message = f"The crediting period ends before it starts: {period.said}."
            status, name = Status.failed, F.crediting_period_end
        elif period.stated is None:
            continue
        elif abs(period.years - period.stated[0]) <= SAME_PERIOD_YEARS:
            message = f"{period.stated[0]:g} years is the length of {period.said}."
            status, name = Status.passed, F.crediting_period_years
        else:
            years = f"{period.stated[0]:g} years stated, but {period.said}"
            message = f"{years} is {period.years:.1f} years."
            status, name = Status.failed, F.crediting_period_years
        checks.append(Check("crediting_period_span", name, status, message, period.shown))
    return checks


def _outside(limit: Limit, number: float, unit: str) -> str | None:
    """How a number misses the methodology's figure, or None when it meets it."""
    low, high = limit.at_least, limit.at_most
    if low is not None and low == high:
        return None if _close(number, low) else f"the methodology asks {low:g}{unit}"
    if low is not None and number < low and not _close(number, low):
        return f"the methodology asks at least {low:g}{unit}"
    if high is not None and number > high and not _close(number, high):
        return f"the methodology asks at most {high:g}{unit}"
    return None


def methodology(
    values: Iterable[FieldValue], periods: Iterable[Period], limits: Iterable[Limit]
) -> list[Check]:
    """Each stated value of a field the methodology sets a figure for, against that figure
    (a permanence of 5 years where it asks at least 10 fails); a crediting period given by its
    start and end only is measured by its length. One check per field: failed naming every
    value that misses, else passed."""
    checks = []
    for limit in limits:
        name = limit.field
        found: list[tuple[float, str, dict[str, Any]]] = []
        for value in values:
            if value.field == name:
                number, problem = read_number(value)
                if number is not None and not problem:
                    found.append((number, where(value), {where(value): value.value}))
        if name == F.crediting_period_years:
            found += [
                (period.years, period.said, period.shown)
                for period in periods
                if period.stated is None and period.end > period.start
            ]
        if not found:
            continue
        unit = " %" if name in PERCENT_FIELDS else (" years" if name in PERIOD_FIELDS else "")
        shown = {k: v for _n, _w, given in found for k, v in given.items()}
        missed = [
            f"{round(number, 1):g}{unit} in {place}, where {why}"
            for number, place, _given in found
            if (why := _outside(limit, number, unit)) is not None
        ]
        reason = f" — {limit.why}" if limit.why else ""
        if missed:
            message = f"{label(name)}: {'; '.join(missed)}{reason}."
            status = Status.failed
        else:
            message = f"{label(name)} meets the methodology's figure{reason}."
            status = Status.passed
        checks.append(Check(f"{name.value}_methodology", name, status, message, shown))
    return checks


def arithmetic(values: Iterable[FieldValue]) -> list[Check]:
    """Where one document states every figure of a sum, does it add up: net reductions = SOC
    change − emissions − leakage; buffer credits = the buffer pool's share of the total credits
    (of the credits issued where no total is stated; the share that document states, else the
    one another document states); a credit statement's total = its parts."""
    by_document: dict[int | str, dict[StructuredField, float]] = {}
    names: dict[int | str, str] = {}
    for value in values:
        if value.field in FIGURE_FIELDS | {F.buffer_pool_percentage}:
            number, problem = read_number(value)
            if number is not None and not problem:
                by_document.setdefault(value.source, {}).setdefault(value.field, number)
                names[value.source] = value.document
    shares = [
        f[F.buffer_pool_percentage] for f in by_document.values() if F.buffer_pool_percentage in f
    ]
    checks = []
    for source, figures in by_document.items():
        document = names[source]
        if set(NET_FIGURES.values()) <= figures.keys():
            checks.append(net_balance({k: figures[f] for k, f in NET_FIGURES.items()}, document))
        share = figures.get(F.buffer_pool_percentage, shares[0] if shares else None)
        # The buffer's share is of the total a statement gives, else of the credits issued.
        base = figures.get(F.credits_total, figures.get(F.credits_issued))
        if F.buffer_credits in figures and base is not None and share is not None:
            checks.append(buffer_share(base, share, figures[F.buffer_credits], document))
        if {F.credits_total, F.buffer_credits} <= figures.keys() and figures.keys() & PARTS:
            checks.append(credit_statement(figures, document))
    return checks


PARTS = {F.credits_issued, F.credits_pending_issue}


def credit_statement(figures: Mapping[StructuredField, float], document: str) -> Check:
    """A credit statement adds up: its total = the buffer pool's credits + the credits issued
    and those pending issue (each as stated, never one read for another)."""
    parts = [
        F.buffer_credits,
        *(f for f in (F.credits_issued, F.credits_pending_issue) if f in figures),
    ]
    added = sum(figures[f] for f in parts)
    total = figures[F.credits_total]
    values = {document: {label(f): figures[f] for f in [*parts, F.credits_total]}}
    said = " + ".join(f"{label(f).lower()} {figures[f]:g}" for f in parts)
    if _close(added, total):
        return Check(
            "credit_statement", F.credits_total, Status.passed, f"Total {total:g} = {said}.", values
        )
    message = f"Total {total:g} credits in {document}, but {said} = {added:g}."
    return Check("credit_statement", F.credits_total, Status.failed, message, values)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= ARITHMETIC_TOLERANCE * max(abs(a), abs(b), 1)


NET = F.net_reductions_tco2e


def net_balance(figures: Mapping[str, float], document: str) -> Check:
    """A report's net = SOC change − emissions − leakage (tCO2e), within rounding."""
    expected = figures["soc_change"] - figures["emissions"] - figures["leakage"]
    net = figures["net"]
    values = {document: dict(figures)}
    if _close(expected, net):
        return Check("net_balance", NET, Status.passed, f"Net {net:g} adds up.", values)
    return Check(
        "net_balance",
        NET,
        Status.failed,
        f"Net {net:g} tCO2e in {document}, but SOC change {figures['soc_change']:g} − emissions "
        f"{figures['emissions']:g} − leakage {figures['leakage']:g} = {expected:g}.",
        values,
    )


def buffer_share(issuance: float, share_percent: float, buffer: float, document: str) -> Check:
    """The buffer pool holds its share of the issuance (its total), within rounding."""
    expected = issuance * share_percent / 100
    values = {document: {"issuance": issuance, "share": share_percent, "buffer": buffer}}
    if _close(expected, buffer):
        return Check(
            "buffer_share", F.buffer_pool_percentage, Status.passed, "Buffer adds up.", values
        )
    return Check(
        "buffer_share",
        F.buffer_pool_percentage,
        Status.failed,
        f"Buffer {buffer:g} in {document}, but {share_percent:g} % of {issuance:g} is "
        f"{expected:g}.",
        values,
    )

"""Field specs: what one field of a record is, written once (name, label, unit, kind, choices with
the words people use for them, limits, whether enrichment may fill it, what it means), and how
a raw value becomes the field's value or a clear problem.

Plain Python and no workspace: a workspace lists its specs and derives its forms, validation,
import/export and API shapes from them. Two readings:
- `read` takes what a person or a file gives (a form, a CSV cell, the API): strict numbers
  (webapp.numbers), choices through their aliases, text within its length.
- `read_measure` takes a model's number for a number field: numeric text, a range (its mean,
  said so), a unit converted to the field's (or refused), whole days rounded (said so).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Any

from webapp.links import is_safe_link
from webapp.numbers import NumberInvalid, parse_number
from webapp.problems import Invalid
from webapp.review.vocabulary import Issue, Severity, shown_value
from webapp.text import control_character_problem
from webapp.units import UnitMismatch, find_quantity


class Kind(StrEnum):
    number = "number"  # a float (or a Decimal, with decimals set)
    integer = "integer"  # a whole number
    choice = "choice"  # one of the choices
    choices = "choices"  # several of the choices, a list
    text = "text"  # one line, up to max_length characters
    long_text = "long_text"  # paragraphs (notes)
    records = "records"  # a list of objects, each key read by one of items
    url = "url"  # a web address (http or https) or a page of this site, one line


NUMERIC_KINDS = frozenset({Kind.number, Kind.integer})


class FieldProblem(Invalid):
    """Why a raw value is not the field's value: a stable code and a message for people."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message, code=code)
        self.details = details


@dataclass(frozen=True)
class Choice:
    """An allowed value, its label, and what people and models write for it (en/de/fr/ja)."""

    value: str
    label: str = ""
    aliases: tuple[str, ...] = ()

    @property
    def shown(self) -> str:
        return self.label or self.value


@dataclass(frozen=True)
class Reading:
    """A model's value read into a number field: the value, its unit, and what reading did
    (info issues: a range collapsed to its mean, a unit converted, days rounded)."""

    value: float | int
    unit: str
    notes: tuple[Issue, ...] = ()


def alias_key(text: str) -> str:
    """How aliases compare: case, width, spaces, underscores and hyphens do not matter."""
    text = unicodedata.normalize("NFKC", text).strip().casefold()
    return re.sub(r"[\s_\-]+", " ", text)


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    kind: Kind
    unit: str = ""  # shown next to every value; "" for none
    help: str = ""  # what the field means: form hints, the model's instructions
    choices: tuple[Choice, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    minimum_excluded: bool = False  # values must be above minimum, not at it
    decimals: int | None = None  # a number kept as a Decimal with this many places
    max_length: int | None = None
    required: str = ""  # the message when the value is missing; "" when it may be empty
    optional_text: bool = False  # an empty text is None (a nullable column), not ""
    enrichable: bool = False  # a provider may suggest it; "missing" means it is empty
    items: tuple[FieldSpec, ...] = ()  # the keys of each record, for Kind.records
    item_label: str = "item"
    _aliases: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        lookup = {
            alias_key(alias): choice.value
            for choice in self.choices
            for alias in (choice.value, choice.shown, *choice.aliases)
        }
        object.__setattr__(self, "_aliases", lookup)

    @property
    def values(self) -> tuple[str, ...]:
        """The allowed values of a choice field, in order."""
        return tuple(choice.value for choice in self.choices)

    @property
    def is_numeric(self) -> bool:
        return self.kind in NUMERIC_KINDS

    @property
    def is_list(self) -> bool:
        return self.kind in (Kind.choices, Kind.records)

    @property
    def empty(self) -> Any:
        """What the field holds when nothing is given."""
        if self.is_list:
            return []
        if self.kind in (Kind.text, Kind.long_text, Kind.url):
            return None if self.optional_text else ""
        return None

    def is_empty(self, value: Any) -> bool:
        return value is None or value == "" or value == []

    def choice_of(self, raw: object) -> str | None:
        """The allowed value raw stands for ("hoch", "pro m²", "Direktsaat"), or None."""
        return self._aliases.get(alias_key(raw)) if isinstance(raw, str) else None

    @property
    def _shown_choices(self) -> str:
        """The choices as people read them (each is accepted back as input)."""
        return ", ".join(choice.shown for choice in self.choices)

    def shown_choice(self, value: str) -> str:
        return next((c.shown for c in self.choices if c.value == value), value)

    def dump(self, value: Any) -> Any:
        """The value as plain JSON (the API, exports)."""
        return float(value) if isinstance(value, Decimal) else value

    # Reading what a person or a file gives.

    def read(self, raw: Any) -> Any:
        """raw as this field's value; FieldProblem says why it cannot be."""
        if raw is None or raw == "" or raw == []:
            if self.required:
                raise FieldProblem("value_missing", self.required)
            return self.empty
        if self.is_numeric:
            return self._read_number(raw)
        if self.kind is Kind.choice:
            value = self.choice_of(raw)
            if value is None:
                raise FieldProblem("value_malformed", f"Choose one of {self._shown_choices}.")
            return value
        if self.kind is Kind.choices:
            return self._read_choices(raw)
        if self.kind is Kind.records:
            return self._read_records(raw)
        if isinstance(raw, Mapping | list | tuple | set):
            # A list or an object is no text: str() of it would store "['a']" as a name.
            raise FieldProblem("value_malformed", "Give one text, not a list or an object.")
        text = str(raw).strip()
        if not text and self.required:
            raise FieldProblem("value_missing", self.required)
        if self.max_length is not None and len(text) > self.max_length:
            raise FieldProblem("value_too_long", f"At most {self.max_length} characters.")
        problem = control_character_problem(text, multiline=self.kind is Kind.long_text)
        if problem:
            raise FieldProblem("value_malformed", problem)
        if self.kind is Kind.url and text and not is_safe_link(text):
            raise FieldProblem(
                "value_malformed", "Give a web address that starts with http:// or https://."
            )
        return text or self.empty

    def _read_number(self, raw: Any) -> Any:
        try:
            value = parse_number(raw)
        except NumberInvalid as refused:
            raise FieldProblem("value_malformed", str(refused)) from None
        if self.kind is Kind.integer and not value.is_integer():
            raise FieldProblem(
                "value_malformed",
                f"Give whole {self.unit}." if self.unit else "Give a whole number.",
            )
        # Limits first: a Decimal of 1e27 cannot be quantized to two places at all.
        self.check_limits(value)
        if self.kind is Kind.integer:
            value = int(value)
        elif self.decimals is not None:
            value = Decimal(repr(value)).quantize(Decimal(1).scaleb(-self.decimals))
            self.check_limits(value)  # 99,999,999.995 rounds up past the limit
        return value

    def check_limits(self, value: float | Decimal) -> None:
        unit = f" {self.unit}" if self.unit else ""
        floor = self.minimum
        if floor is not None and (value <= floor if self.minimum_excluded else value < floor):
            if self.minimum_excluded:
                message = f"Must be above {floor:g}{unit}."
            else:
                message = "Must not be negative." if floor == 0 else f"At least {floor:g}{unit}."
            raise FieldProblem("value_out_of_range", message)
        if self.maximum is not None and value > self.maximum:
            raise FieldProblem("value_out_of_range", f"At most {self.maximum:,.10g}{unit}.")

    def _read_choices(self, raw: Any) -> list[str]:
        items = raw if isinstance(raw, list) else [raw]
        unknown = [item for item in items if self.choice_of(item) is None]
        if unknown:
            raise FieldProblem(
                "value_malformed",
                f"Unknown: {', '.join(map(shown_value, unknown))}; use {self._shown_choices}.",
            )
        return list(dict.fromkeys(self.choice_of(item) for item in items))

    def _read_records(self, raw: Any) -> list[dict[str, Any]]:
        if not isinstance(raw, list):
            raise FieldProblem("value_malformed", f"Give a list of {self.item_label}s.")
        records = []
        for n, item in enumerate(raw, start=1):
            where = f"{self.item_label.capitalize()} {n}"
            if not isinstance(item, Mapping):
                raise FieldProblem("value_malformed", f"{where} is not an object.")
            try:
                records.append({spec.name: spec.read(item.get(spec.name)) for spec in self.items})
            except FieldProblem as problem:
                raise FieldProblem(problem.code, f"{where}: {problem.message}") from None
        return records

    # Reading a model's number.

    def read_measure(
        self,
        raw: Any,
        unit: Any = None,
        *,
        target: str | None = None,
        convert: Callable[[float, str], float] | None = None,
    ) -> Reading:
        """A model's number for this field: a number, numeric text or a range (its mean), in
        target (the unit the record's context gives) or the field's own unit, converted with
        convert(value, written unit) from the unit it was written in. FieldProblem says why
        not: value_malformed, unit_unreadable, unit_mismatch, value_out_of_range."""
        read = read_bounds(raw)
        if read is None:
            raise FieldProblem(
                "value_malformed",
                f"“{shown_value(raw)}” is not a number or a range of numbers.",
            )
        (low, high), written_in_value = read
        written = written_in_value or unit
        shown_unit = target or self.unit
        if written is not None and not isinstance(written, str):
            raise FieldProblem("unit_unreadable", f"“{shown_value(written)}” is not a unit.")
        if shown_unit == "days":  # "days after transplanting": what a count starts from
            written = _DAYS_COUNTED.sub("", written or "").strip()
        notes: list[Issue] = []
        own_units = (_plain_unit(shown_unit), _plain_unit(self.unit))
        if written and written.strip() and _plain_unit(written) not in own_units:
            written = written.strip()
            ends = [v for v in (low, high) if v is not None]
            try:
                if convert is None:
                    raise UnitMismatch(f"{written} is not {shown_unit or 'a plain number'}.")
                converted = [convert(v, written) for v in ends]
            except UnitMismatch as mismatch:
                raise FieldProblem(
                    mismatch.code,
                    f"“{shown_value(raw)}” in {shown_value(written)}: {mismatch}",
                    unit=shown_value(written),
                ) from None
            if target is not None and converted != ends:
                message = f"{_span(low, high)} {written} is {_span(*converted)} {shown_unit}."
                notes.append(self._note("unit_converted", message, unit=written))
            low, high = converted[0], converted[-1] if high is not None else None
        value = low
        whole = self.kind is Kind.integer
        if high is not None and high != low:
            value = (low + high) / 2
            value = round(value) if whole else round(value, 2)
            message = f"The source gives {low:g}–{high:g}; the mean {value:g} is suggested."
            notes.append(
                self._note("range_collapsed_to_mean", message, min=low, max=high, mean=value)
            )
        elif whole and value != round(value):
            message = f"{value:g} {self.unit} is rounded to {round(value)} whole {self.unit}."
            notes.append(self._note("rounded_to_whole_days", message, value=value))
            value = round(value)
        floor = -math.inf if self.minimum is None else self.minimum
        ceiling = math.inf if self.maximum is None else self.maximum
        if not floor <= value <= ceiling:
            raise FieldProblem(
                "value_out_of_range",
                f"{value:g} {shown_unit} is outside what this field holds ({floor:g}–{ceiling:g}).",
            )
        return Reading(round(value) if whole else value, shown_unit, tuple(notes))

    def _note(self, code: str, message: str, **details: Any) -> Issue:
        return Issue(code, Severity.info, self.name, message, details)


# Words before a number that say it is approximate: read past them.
_APPROXIMATELY = re.compile(
    r"^(?:~|≈|ca\.?|c\.|circa|about|around|approx\.?|approximately|roughly|typically)\s*",
    re.IGNORECASE,
)
_DAYS_COUNTED = re.compile(r"\s+(?:after|from|since|until|to)\b.*$", re.IGNORECASE)


def number_of(raw: object) -> float | None:
    """A finite number from a JSON number or numeric text (read leniently); None otherwise."""
    try:
        return parse_number(raw, lenient=True)
    except NumberInvalid:
        return None


def read_bounds(raw: object) -> tuple[tuple[float, float | None], str | None] | None:
    """((low, high or None), the unit written in the value) for a model's number or range:
    4, "4,5 kg", "3–5", "between 3 and 5", [3, 5], {"min": 3, "max": 5}. None when it is none
    of them: a range is a range, never its first number."""
    if isinstance(raw, str):
        text = _APPROXIMATELY.sub("", raw.strip())
        quantity = find_quantity(text)
        # The value starts with its number ("between 3 and 5" too): "FAO-56: 120 days" is no
        # answer of 56 or 120.
        if (
            quantity is None
            or text[: quantity.start].strip().casefold() not in ("", "between")
            or not math.isfinite(quantity.value)
        ):
            return None
        return (quantity.bounds or (quantity.value, None)), quantity.unit
    if isinstance(raw, Mapping) and set(raw) >= {"min", "max"}:
        pair: Sequence[object] = (raw["min"], raw["max"])
    elif isinstance(raw, list | tuple) and len(raw) == 2:
        pair = raw
    else:
        number = number_of(raw)
        return None if number is None else ((number, None), None)
    low, high = (number_of(item) for item in pair)
    if low is None or high is None:
        return None
    return (min(low, high), max(low, high)), None


def _plain_unit(unit: str) -> str:
    return " ".join(unit.split()).casefold().replace("m2", "m²")


def _span(low: float, high: float | None = None) -> str:
    return f"{low:g}" if high is None or high == low else f"{low:g}–{high:g}"


def by_name(specs: Sequence[FieldSpec]) -> dict[str, FieldSpec]:
    return {spec.name: spec for spec in specs}

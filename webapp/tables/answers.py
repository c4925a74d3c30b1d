"""Extractive answers from library passages, for the offline provider: the figure a sentence
about the row's subject states, never a number from a title, a source name or a reference.

A number answers only when its sentence names the row's subject and shares a word of the
question beyond the subject and the unit; it is no year (unless the question asks for one), no
page, table or section number, no side of a conversion ("1 dt/ha = 0.01 kg/m²"), and not part
of a name ("FAO-56", "DüV 2017"); and, for a column
with a unit, it is written with a unit that converts to the column's. A range stays a range (the
coercion layer collapses it to its mean and says so). Two or more different figures are no
answer: the trace lists them. Text columns take the best sentence about the subject.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from webapp.figures import why_no_figure
from webapp.library.search import Passage
from webapp.tables.coerce import in_column_unit
from webapp.units import Quantity, UnitMismatch, known_unit, quantities

WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
STOP_WORDS = frozenset((
    "the", "and", "for", "what", "which", "who", "whom", "whose", "when", "where", "how", "was",
    "were", "are", "is", "this", "that", "with", "from", "into", "per", "der", "die", "das",
    "und", "les", "des", "une", "est", "does", "did", "has", "have", "had", "its", "many",
    "much", "give", "given", "about", "typical", "typically", "average",
))  # fmt: skip
_HEADING = re.compile(r"^\s*#|:\s*$")
_ASKS_FOR_A_YEAR = re.compile(r"\b(?:year|when|since)\b", re.IGNORECASE)


def words(text: str) -> set[str]:
    """The content words of text, folded and roughly singular ("Tomatoes" and "tomato" agree)."""
    return {_singular(w) for w in (m.casefold() for m in WORD.findall(text))} - STOP_WORDS


def with_singulars(query: str) -> str:
    """A search query with the rough singular of its words added: the index does not stem,
    and "Potatoes" should find "potato"."""
    extra = sorted(words(query) - {w.casefold() for w in WORD.findall(query)})
    return " ".join([query, *extra])


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("oes") and len(word) > 4:
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


@dataclass(frozen=True)
class Candidate:
    figure: str  # as written: "75–140 days"
    value: float  # in the column's unit; a range's mean
    sentence: str
    passage: Passage


@dataclass
class Reading:
    """What the passages answer, and how it was decided."""

    answer: str | None = None  # the figure or sentence; None: not found
    passage: Passage | None = None
    reason: str | None = None  # why not found: "nothing" | "ambiguous"
    candidates: list[Candidate] = field(default_factory=list)
    passed_over: list[str] = field(default_factory=list)  # numbers not taken, and why

    def trace(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.candidates:
            data["candidates"] = [
                {"figure": c.figure, "sentence": c.sentence, "title": c.passage.title}
                for c in self.candidates
            ]
        if self.passed_over:
            data["passed_over"] = self.passed_over[:20]
        if self.reason:
            data["reason"] = self.reason
        return data


def sentences(passage: Passage) -> Iterable[str]:
    """The passage's sentences; headings and the passage title are no answers."""
    for sentence in SENTENCE.split(passage.text):
        sentence = sentence.strip()
        if sentence and not _HEADING.search(sentence):
            yield sentence


def about(sentence_words: set[str], subject: set[str]) -> bool:
    """Whether a sentence names the row's subject (two thirds of its words, at least one)."""
    if not subject:
        return True
    return len(subject & sentence_words) >= max(1, math.ceil(len(subject) * 2 / 3))


def read_number(
    passages: Iterable[Passage], question: str, subject: set[str], unit: str | None
) -> Reading:
    """The one figure the passages state for the question about the subject, or why none."""
    # What is asked: the question's words beyond its subject and its units ("days").
    asked = {w for w in words(question) - subject if not known_unit(w)}
    allow_years = bool(_ASKS_FOR_A_YEAR.search(question))
    reading = Reading()
    for passage in passages:
        for sentence in sentences(passage):
            sentence_words = words(sentence)
            if not about(sentence_words, subject) or not asked & (sentence_words - subject):
                continue
            for quantity in quantities(sentence):
                why_not = _passed_over(sentence, quantity, unit, allow_years)
                if why_not:
                    reading.passed_over.append(f"{_figure(sentence, quantity)}: {why_not}")
                    continue
                reading.candidates.append(
                    Candidate(
                        _figure(sentence, quantity),
                        _in_unit(quantity, unit),
                        sentence,
                        passage,
                    )
                )
    distinct = {round(c.value, 6) for c in reading.candidates}
    if len(distinct) == 1:
        first = reading.candidates[0]
        reading.answer, reading.passage = first.figure, first.passage
    else:
        reading.reason = "ambiguous" if distinct else "nothing"
    return reading


def read_text(passages: Iterable[Passage], question: str, subject: set[str]) -> Reading:
    """The sentence about the subject sharing most words with the question."""
    asked = words(question)
    best: tuple[float, str, Passage] | None = None
    for rank, passage in enumerate(passages):
        for sentence in sentences(passage):
            sentence_words = words(sentence)
            if not about(sentence_words, subject):
                continue
            overlap = len((asked - subject) & sentence_words)
            score = overlap - rank * 0.01
            if overlap and (best is None or score > best[0]):
                best = (score, sentence, passage)
    if best is None:
        return Reading(reason="nothing")
    return Reading(answer=best[1], passage=best[2])


def _figure(sentence: str, quantity: Quantity) -> str:
    return sentence[quantity.start : quantity.end]


def _passed_over(
    sentence: str, quantity: Quantity, unit: str | None, allow_years: bool
) -> str | None:
    """Why this number is no answer, or None when it may be one."""
    why_not = why_no_figure(sentence, quantity, allow_years)
    if why_not:
        return why_not
    if unit:
        if quantity.unit is None:
            return f"no unit (the column is in {unit})"
        try:
            _in_unit(quantity, unit)
        except UnitMismatch as mismatch:
            return str(mismatch)
    return None


def _in_unit(quantity: Quantity, unit: str | None) -> float:
    """The quantity (a range's mean) in the column's unit; UnitMismatch when it is not one."""
    low, high = quantity.bounds or (quantity.value, quantity.value)
    value = (low + high) / 2
    if quantity.unit is None:
        return value
    return in_column_unit(value, quantity.unit, unit)[0]

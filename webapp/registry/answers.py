"""Which sentences of a passage answer a requirement, rather than restate it. A registry
template holds each requirement's question, heading and prompt ("Describe the project
boundary…", "Project Proponents must indicate if…", "[Insert description]"); a blank template
names every requirement's words, and none of it is evidence. A sentence answers when it states
something — a verb in the indicative, or a label with a value ("Project start date: 1 April
2024") — and is not a question, an instruction, a placeholder, a rule restated ("shall",
"must") without a figure of its own, or a heading. For a requirement of fields, the answer must
also hold a value of the kind a field asks for: a date, a number with its unit, a name, an ID,
a form of tenure."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from webapp.registry.checklist import Checklist, Requirement, StructuredField
from webapp.registry.dates import dates_in
from webapp.registry.rules import (
    PERCENT_FIELDS,
    PERIOD_FIELDS,
    PROJECT_ID_SHAPES,
    REFERENCE,
    is_generic_owner,
    tenures,
)
from webapp.units import quantities

F = StructuredField
# Where a sentence may end: after . ! ? and before a capital, a digit, a quote or a bracket;
# not after an abbreviation or an initial ("p. 4", "e.g. The", "J. Smith").
SENTENCE_END = re.compile(r"(?<=[.!?])[_*]{0,2}\s+(?=(?:[-+•]\s+)?[_*]{0,2}[A-Z0-9\"“(\[])")
ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|no|nr|p|pp|vs|fig|ca|approx|st|dr|mr|mrs|ms)|\b[A-Z])\.$", re.I
)
HEADING_LINE = re.compile(
    r"^(?:#{1,6}\s+.{1,120}|(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[A-Z]\.|(?:annex|appendix|section|part)"
    r"\s+\w{1,4}[.:]?)\s+[^.!?]{2,100}|[^.!?:]{1,60})$",
    re.I,
)
# Markdown's emphasis and list marks before a sentence ("_Indicate…", "- **Note**"), and a
# sentence in italics alone: a template's guidance ("_Describe how…_").
MARKUP = re.compile(r"^(?:[-*+>]\s+|[_*]{1,2}(?=\S))+")
ITALIC = re.compile(r"_[^_]+_\.?|\*[^*]+\*\.?")
GUIDANCE_LINE = re.compile(r"(?:[-*+•]\s+)?_(?P<words>[^_]+)_[.:;,]?")
# A label before the sentence proper: "REQ-019:", "Safeguards:", "1.2 Public comment:".
LABEL = re.compile(r"^(?:[\w§.()\-–/,' ]{1,60}?):\s+")
NUMBERING = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[a-z]\)|[ivx]{1,4}\.|[-•*–])\s+", re.I)
PROMPT_VERBS = frozenset(
    {
        "add", "address", "attach", "classify", "clearly", "complete", "confirm", "define",
        "demonstrate", "describe", "detail", "disclose", "document", "enter", "explain", "fill",
        "give", "identify", "include", "indicate", "insert", "justify", "list", "outline",
        "please", "present", "prove", "provide", "refer", "show", "specify", "state",
        "stipulate", "submit", "summarise", "summarize", "upload", "write",
    }
)  # fmt: skip
# What a template writes before its own words.
TEMPLATE_LABELS = frozenset(
    {
        "accepted evidence", "evidence", "evidence required", "requirement", "source",
        "guidance", "note", "instructions", "example", "hint", "help",
    }
)  # fmt: skip
# A rule restated: its words oblige, they do not report.
NORMATIVE = re.compile(
    r"\b(?:shall|must|should|ought\s+to|(?:is|are)\s+(?:required|expected|to\s+be\s+provided)"
    r"|needs?\s+to)\b",
    re.I,
)
# What a template leaves to fill: "[Insert the date]", "<name>", "____", "dd/mm/yyyy", "TBC".
PLACEHOLDER = re.compile(
    r"\[(?!\d+\])[^\]]{0,120}\](?!\()|\[\s*(?:insert|enter|add|describe|provide|type|state)\b|"
    r"<(?!/?(?:br|b|i|em|strong|sup|sub|p|span|u)\b)[^<>]{1,60}>|_{3,}|\.{5,}|…{2,}|\bX{2,}\b|\bdd/mm/yyyy\b|"
    r"\bmm/dd/yyyy\b|\b(?:tbd|tbc|to\s+be\s+(?:completed|confirmed|determined|provided|added))\b"
    r"|lorem\s+ipsum",
    re.I,
)
# A sentence about the document itself: "This section describes…", "The following table…".
ABOUT_THE_TEMPLATE = re.compile(
    r"^(?:in\s+)?(?:this|the\s+following|each)\s+(?:section|sub-?section|chapter|template|"
    r"part|table|form|field|box|document)\b",
    re.I,
)
# A verb that states: an auxiliary, or one of the verbs documents report with. A word
# ending in -ed counts unless it is the first (a heading: "Proposed deviations").
STATING = re.compile(
    r"\b(?:is|are|was|were|be|been|being|has|have|had|will|would|can|could|may|might|does|do|"
    r"did|includes?|comprises?|consists?|covers?|follows?|applies|uses|holds?|owns?|lies|meets?|"
    r"describes|contains?|shows|provides|sets|takes|gives|receives?|remains?|occurs?|allows|"
    r"exceeds?|equals|totals?|begins?|starts|ends|runs|lasts|stands|represents|involves|"
    r"operates|grows|manages|complies|belongs|stores|sequesters|increases|reduces|relies)\b",
    re.I,
)
ADJECTIVES = r"(?:based|related|needed|required|proposed|detailed|limited|registered)\b"
PAST = re.compile(rf"(?<=\w)\s+(?!{ADJECTIVES})[a-z]{{3,}}ed\b")
YES = re.compile(r"\s*(?:yes|no)\b", re.I)
NEGATIVE = re.compile(r"\b(?:none|not|no|never)\b", re.I)
# A name as a person, a company or a place writes it: two capitalised words or more.
NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]+(?:\s+(?:&\s+)?[A-Z][\w'’.-]*)+")
AREA_UNITS = {"ha", "hectare", "hectares", "acre", "acres", "ac", "km2", "km²", "m2", "m²"}
YEAR_WORDS = re.compile(r"\d\s*-?\s*(?:years?|yrs?)\b", re.I)
WORD = re.compile(r"[a-z][a-z0-9-]+")
DOTTED = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,3}(?![\w.])")
REFERENCE_REACH = 40  # characters before a number that can say it is a reference
NEW_SHARE = 0.5  # of a sentence's words, not the requirement's, for it to say something new
RESTATED_SHARE = 0.25  # fewer new words than this, and no value: the requirement restated


def _row(line: str) -> str:
    """A Markdown table's row as a label and its value ("|Credit Class Version|1.5.1|" is
    "Credit Class Version: 1.5.1"); a rule row ("|---|---|") is nothing; any other line as is."""
    if not line.startswith("|"):
        return line
    cells = [c.strip(" *_") for c in line.strip("|").split("|")]
    cells = [c for c in cells if c and not set(c) <= set("-: ")]
    return f"{cells[0]}: {' '.join(cells[1:])}" if len(cells) > 1 else "".join(cells)


def sentences(text: str) -> Iterator[str]:
    """A passage's sentences, a heading line standing alone: lines are joined unless one is a
    heading (a numbered or short line with no full stop), then split at sentence ends; a
    Markdown table's row is one sentence, its first cell the label; lines written wholly in
    italics (a template's guidance, "_Indicate the…_") are one italic sentence of their own."""
    block: list[str] = []
    guidance: list[str] = []
    lines = [(_row(line.strip()), line.strip().startswith("|")) for line in text.splitlines()]
    lines = [(line, row) for line, row in lines if line]
    for (line, row), (after, _row_after) in zip(lines, [*lines[1:], ("", False)], strict=False):
        italic = GUIDANCE_LINE.fullmatch(line)
        if guidance and not italic:
            yield f"_{' '.join(guidance)}_"
            guidance = []
        starts = not after or not after[0].islower()  # a line wrapped mid-sentence goes on
        if italic or row or (starts and HEADING_LINE.match(line) and not STATING.search(line)):
            yield from _split(" ".join(block))
            block = []
            if italic:
                guidance.append(italic.group("words"))
            else:
                yield line
        else:
            block.append(line)
    if guidance:
        yield f"_{' '.join(guidance)}_"
    yield from _split(" ".join(block))


def _split(text: str) -> Iterator[str]:
    start = 0
    for end in SENTENCE_END.finditer(text):
        if not ABBREVIATION.search(text[start : end.start()]):
            if text[start : end.start()].strip():
                yield text[start : end.start()].strip()
            start = end.end()
    if text[start:].strip():
        yield text[start:].strip()


@lru_cache(maxsize=4096)  # a requirement's own words are asked about for every sentence
def _figures(text: str) -> frozenset[str]:
    """The numbers a text gives as figures, not as references ("Section 8.1.3"): the words
    just before a number say which."""
    plain = {
        q.number_text
        for q in quantities(text)
        if not REFERENCE.search(text[max(0, q.start - REFERENCE_REACH) : q.start])
        and not re.match(r"\.\d", text[q.end : q.end + 2])
    }
    # A dotted number ("1.5.1") is a version unless words before it make it a section.
    dotted = {
        m.group()
        for m in DOTTED.finditer(text)
        if not REFERENCE.search(text[max(0, m.start() - REFERENCE_REACH) : m.start()])
    }
    return frozenset(plain | dotted)


def _own_words(requirement: Requirement) -> str:
    return " ".join(
        [requirement.requirement_text, requirement.accepted_evidence, requirement.category]
    )


@dataclass(frozen=True)
class Values:
    """What a text gives of its own, read once however many requirements ask."""

    dated: bool
    figures: frozenset[str]
    names: tuple[str, ...]  # casefolded
    identified: bool  # an ID in a registry's shape
    yes: bool  # starts with a yes or a no
    negative: bool  # says no, not, none or never


@lru_cache(maxsize=65536)
def values_in(text: str) -> Values:
    return Values(
        bool(dates_in(text)),
        _figures(text),
        tuple(m.group().casefold() for m in NAME.finditer(" " + text)),
        any(shape.search(text) for shape in PROJECT_ID_SHAPES),
        bool(YES.match(text)),
        bool(NEGATIVE.search(text)),
    )


def _has_value(text: str, own: str) -> bool:
    """Whether a text gives something its requirement's own words do not: a date, a figure,
    a name, an ID, a yes, or a no ("No assessment was undertaken")."""
    mine, theirs = values_in(text), values_in(own)
    return bool(
        mine.dated
        or mine.figures - theirs.figures
        or any(name not in own.casefold() for name in mine.names)
        or mine.identified
        or mine.yes
        or (mine.negative and not theirs.negative)
    )


@dataclass(frozen=True)
class Shape:
    """How a sentence is written, whatever it is asked about."""

    body: str  # without its numbering
    rest: str  # without its label ("Public comment: …")
    value: str | None  # what a "Label: value" line gives
    prompt: bool  # a question, an instruction, a placeholder, a template's label or note
    normative: bool  # "shall", "must"
    stating: bool  # a verb that reports
    plain: tuple[str, str]  # its body and rest in plain words
    words: int


@lru_cache(maxsize=65536)
def shape_of(sentence: str) -> Shape:
    body = NUMBERING.sub("", MARKUP.sub("", sentence))
    label = LABEL.match(body)
    rest = body[label.end() :] if label else body
    first = WORD.match(rest.lower())
    prompt = bool(
        (label and label.group(0).strip(": ").casefold() in TEMPLATE_LABELS)
        or sentence.rstrip().endswith("?")
        or PLACEHOLDER.search(sentence)
        or ABOUT_THE_TEMPLATE.match(rest)
        or ITALIC.fullmatch(sentence.strip())
        or (first and first.group(0) in PROMPT_VERBS)
    )
    return Shape(
        body,
        rest,
        rest if label else None,
        prompt,
        bool(NORMATIVE.search(sentence)),
        bool(STATING.search(body) or PAST.search(body)),
        (plain_words(body), plain_words(rest)),
        len(WORD.findall(sentence.lower())),
    )


def plain_words(text: str) -> str:
    return " ".join(WORD.findall(text.lower()))


def asked_in(checklist: Checklist) -> frozenset[str]:
    """Every sentence a checklist asks or accepts, in plain words: a template copies them
    under each other's headings, and none of them answers anything."""
    return frozenset(
        plain_words(sentence)
        for r in checklist.requirements
        for text in (r.requirement_text, r.accepted_evidence)
        for sentence in [text, *_split(text), *text.split(": ", 1)[1:]]
    )


def is_prompt(sentence: str, requirement: Requirement, asked: frozenset[str] = frozenset()) -> bool:
    """A question, an instruction, a placeholder, a sentence about the template, a sentence
    the checklist asks (asked: its sentences in plain words), or a rule restated without a
    figure of its own."""
    shape = shape_of(sentence)
    own = _own_words(requirement)
    return (
        shape.prompt
        or any(plain in asked for plain in shape.plain)
        or (shape.normative and not values_in(sentence).figures - values_in(own).figures)
    )


def answers(sentence: str, requirement: Requirement, asked: frozenset[str] = frozenset()) -> bool:
    """Whether a sentence states something: not a prompt, and either a statement (a verb that
    reports) or a label with a value of its own."""
    shape = shape_of(sentence)
    if is_prompt(sentence, requirement, asked):
        return False
    if shape.words < 2:  # a bare value answers ("01/01/2022.", "4997Botany22"); "19 Safeguards" no
        found = values_in(sentence)
        return found.dated or found.identified or (bool(found.figures) and shape.words == 0)
    own = _own_words(requirement)
    if shape.value is not None and _has_value(shape.value, own):
        return True
    if len(shape.body.split()) < 4:
        return False
    new = _new_share(shape.body, requirement)
    if new < RESTATED_SHARE and not _has_value(shape.body, own):
        return False  # the requirement's words again, with nothing of its own
    if shape.stating:
        return True
    # A verb no list holds ("restores", "favours"): a whole sentence in words of its own.
    return shape.body.rstrip().endswith((".", ";")) and new >= NEW_SHARE


@lru_cache(maxsize=1024)
def _stems(text: str) -> frozenset[str]:
    return frozenset(w[:5] for w in WORD.findall(text.lower()))


def _new_share(sentence: str, requirement: Requirement) -> float:
    """The share of a sentence's words (of four letters or more) its requirement does not use."""
    own = _stems(_own_words(requirement))
    mine = [w for w in WORD.findall(sentence.lower()) if len(w) >= 4]
    return sum(1 for w in mine if w[:5] not in own) / len(mine) if mine else 0.0


def answer_units(
    text: str, requirement: Requirement, asked: frozenset[str] = frozenset()
) -> list[str]:
    """The sentences of a passage that answer. A bare value answering the question just before
    it ("…specify the day, month, and year._ 01/01/2022.") is kept with that question: together
    they say what the value is."""
    found, before = [], ""
    for sentence in sentences(text):
        if answers(sentence, requirement, asked):
            bare = shape_of(sentence).words < 2
            found.append(f"{before} {sentence}" if bare and before else sentence)
        before = sentence
    return found


def answer_text(text: str, requirement: Requirement, asked: frozenset[str] = frozenset()) -> str:
    """The sentences of a passage that answer, joined; empty when none does."""
    return " ".join(answer_units(text, requirement, asked))


def states_kind(name: StructuredField, text: str) -> bool:
    """Whether a text holds a value of the kind a field asks for (which value is a person's or
    the model's to say)."""
    if name in {F.project_start_date, F.crediting_period_start, F.crediting_period_end}:
        return bool(dates_in(text))
    if name == F.project_id:
        return any(shape.search(text) for shape in PROJECT_ID_SHAPES) or bool(
            re.search(r"\bID\b\s*(?:no\.?|number)?\s*:?\s*[\w-]*\d", text)
        )
    if name == F.owner_name:  # a name, not a role ("Land Steward", "Project Owner")
        return any(not is_generic_owner(m.group()) for m in NAME.finditer(" " + text))
    if name == F.tenure_type:
        return bool(tenures(text))
    if name == F.area_hectares:
        return any((q.unit or "").lower() in AREA_UNITS for q in quantities(text))
    if name in PERCENT_FIELDS:
        return bool(re.search(r"\d\s*(?:%|per\s*cent|percent)", text, re.I))
    if name in PERIOD_FIELDS:
        return bool(YEAR_WORDS.search(text))
    return bool(_figures(text))


# The words a sentence names a field by, beside its value ("The project start date is …").
FIELD_WORDS = {
    F.owner_name: r"own(?:s|ed|er|ers|ership)|proprietors?|landowners?|landholders?|freeholders?",
    F.area_hectares: r"area|hectares?|acres?|extent|size",
    F.tenure_type: r"tenure|freehold|leasehold|leased?|owned|title|licen[cs]e",
    F.project_start_date: r"start(?:s|ed|ing)?|commenc\w*|began|begins?",
    F.crediting_period_years: r"crediting\s+(?:period|term)",
    F.crediting_period_start: r"crediting\s+(?:period|term)",
    F.crediting_period_end: r"crediting\s+(?:period|term)",
    F.leakage_percentage: r"leakage",
    F.permanence_period_years: r"permanence",
    F.buffer_pool_percentage: r"buffer",
    F.project_id: r"ID|identifier|reference|registry\s+(?:no|number)",
    F.soc_change_tco2e: r"soil\s+(?:organic\s+)?carbon|SOC",
    F.project_emissions_tco2e: r"emissions?",
    F.leakage_tco2e: r"leakage",
    F.net_reductions_tco2e: r"net",
    F.credits_issued: r"issued|issuance",
    F.credits_pending_issue: r"pending",
    F.credits_total: r"total",
    F.buffer_credits: r"buffer",
}
FIELD_PATTERNS = {
    name: re.compile(rf"\b(?:{words})\b", 0 if name == F.project_id else re.I)
    for name, words in FIELD_WORDS.items()
}


def states_field(name: StructuredField, sentence: str) -> bool:
    """Whether a sentence names a field and holds a value of its kind."""
    pattern = FIELD_PATTERNS.get(name)
    return bool(pattern and pattern.search(sentence)) and states_kind(name, sentence)


def states_any(fields: Iterable[StructuredField], units: Iterable[str]) -> bool:
    """Whether one of a passage's answers (answer_units) states one of the fields."""
    fields = list(fields)
    return any(states_field(name, unit) for unit in units for name in fields)

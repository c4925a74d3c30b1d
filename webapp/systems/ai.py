"""The openai provider's part in calculating a value: what the model is told (the system, step
and intervention, the three levels' assumptions, the value's conversation), the calculators it
may call as a tool, the strict schema it answers in, and that answer read as untrusted input —
every problem an Issue on the cell, never a crash."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from webapp.ai import Usage
from webapp.ai.client import FunctionTool, StructuredClient
from webapp.config import Settings
from webapp.figures import states_a_figure
from webapp.review.vocabulary import (
    Confidence,
    Evidence,
    Issue,
    Severity,
    SourceKind,
    SuggestedValue,
)
from webapp.systems.calculators import CALCULATORS, calculate_in
from webapp.systems.conversation import transcript
from webapp.systems.document import owner, parse_path
from webapp.systems.grid import units_of
from webapp.systems.indicators import indicator
from webapp.systems.rules import check
from webapp.units import UnitMismatch, convert

LEVELS = ("system", "step", "intervention")
# The most tokens one answer about a value may take: its steps, assumptions and sources.
ANSWER_TOKENS = 2048


class SourceAnswer(BaseModel):
    title: str
    url: str
    claim: str  # what the source says, with the figure the value rests on


class CellAnswer(BaseModel):
    """The seed's assistant message, as the model must answer it."""

    model_config = ConfigDict(title="cell_answer", allow_inf_nan=False)

    message: str
    value: float | None
    unit: str
    confidence: Literal["high", "medium", "low"]
    assumptions: list[str]
    calculation_steps: list[str]
    sources: list[SourceAnswer]
    caveats: list[str]
    new_assumptions: str
    new_assumptions_level: Literal["system", "step", "intervention"]


INSTRUCTIONS = (
    "You calculate one indicator of one intervention of a farm system (a crop rotation), per "
    "hectare, for a French farm adviser. Use the assumptions the system, the step and the "
    "intervention state (the most specific wins) and the intervention's description. Call the "
    "`calculate` tool first for the indicator and for any indicator it rests on: it runs "
    "Furrow's cited calculators and says what they lack. Never invent a figure: give value null "
    "when you cannot justify one, and say what is missing in caveats. Give the value in the "
    "unit asked. List the assumptions you made, each calculation step with its numbers, and "
    "every source as title, URL and the claim it makes with its figure; a source that does not "
    "state a figure you use is not a source. Put the assumptions a person should check as "
    'Markdown lines "- **Key**: Value" in new_assumptions (empty when none) with the level '
    "they belong to. message says in one or two sentences what you did, in the language the "
    "user writes in. Answer with JSON only."
)
# A server without web search can cite nothing it did not read.
OFFLINE_SOURCES = " You cannot search the web: cite only sources the `calculate` tool gave you."


@dataclass
class Answered:
    """What the model answered for one cell, read: what the run keeps, the suggestion (value,
    unit, confidence, evidence, issues) when there is a value, and new assumptions."""

    kept: dict[str, Any]
    value: float | None = None
    unit: str = ""
    confidence: Confidence | None = None
    evidence: list[Evidence] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    new_assumptions: str = ""
    level: str = "intervention"
    usage: Usage = field(default_factory=Usage)

    def proposed(self) -> tuple[SuggestedValue, list[Evidence], list[Issue]] | None:
        """The suggestion's parts (as a calculator's result gives them), None without a value."""
        if self.value is None:
            return None
        return SuggestedValue(self.value, self.unit, self.confidence), self.evidence, self.issues


def describe(
    system: Mapping[str, Any],
    document: Mapping[str, Any],
    path: str,
    conversation: Sequence[Mapping[str, Any]] = (),
    message: str = "",
) -> str:
    """The prompt: the system, step and intervention, the three levels' assumptions, the value
    asked (with its current value), the conversation so far and the user's message."""
    step_id, intervention_id, key, _status = parse_path(path)
    step, work, holder, list_key = owner(dict(document), step_id, intervention_id)
    work = work or {}
    entry = next((e for e in holder.get(list_key, []) if e.get("key") == key), {})
    wanted = indicator(key)
    unit = cell_unit(document, path)
    lines = [
        f"System: {system.get('name', '')} ({system.get('system_type') or 'type not given'})",
        f"System description: {system.get('description') or '—'}",
        f"Productions: {system.get('productions') or '—'}",
        f"Step: {step.get('name', '')}, from {step.get('startDate')} to {step.get('endDate')}",
        f"Step description: {step.get('description') or '—'}",
        f"Intervention: {work.get('name', '')}, day {work.get('day', '0')} of the step, "
        + ("cover-crop lane" if work.get("type") == "intervention_bottom" else "main-crop lane"),
        f"Intervention description: {work.get('description') or '—'}",
        "",
        "Assumptions of the system:\n" + (document.get("assumptions") or "(none)"),
        "Assumptions of the step:\n" + (step.get("assumptions") or "(none)"),
        "Assumptions of the intervention:\n" + (work.get("assumptions") or "(none)"),
        "",
        f"Indicator: {key} — {wanted.label_fr} / {wanted.label_en}, in {unit}"
        + (f" ({wanted.formula})" if wanted.formula else ""),
        f"Current value: {entry.get('value', 'none')}",
    ]
    if conversation:
        lines += ["", "The conversation about this value so far:", transcript(conversation)]
    if message:
        lines += ["", f"The user now writes: {message}"]
    return "\n".join(lines)


def calculator_tool(
    document: Mapping[str, Any],
    step_id: str,
    intervention_id: str,
    given: list[Evidence] | None = None,
) -> FunctionTool:
    """`calculate(key)`: a calculator's result (value, unit, assumptions, steps, sources,
    caveats, what it needs) for this intervention, as the model reads it; the sources it
    gave are added to given."""

    def run(args: dict[str, Any]) -> str:
        key = args.get("key")
        if key not in CALCULATORS:
            return f"There is no calculator for {key!r}; there are: {', '.join(CALCULATORS)}."
        result = calculate_in(document, step_id, intervention_id, key)
        if given is not None:
            given.extend(result.sources)
        return json.dumps(result.to_message(), ensure_ascii=False)

    return FunctionTool(
        "calculate",
        "Run Furrow's offline, cited calculator for one indicator of this intervention.",
        {
            "type": "object",
            "properties": {"key": {"type": "string", "enum": list(CALCULATORS)}},
            "required": ["key"],
            "additionalProperties": False,
        },
        run,
    )


def cell_unit(document: Mapping[str, Any], path: str) -> str:
    """The unit of the cell's value: the indicator's, a yield in the unit its step states."""
    step_id, intervention_id, key, _part = parse_path(path)
    step = owner(dict(document), step_id, intervention_id)[0]
    return units_of(step, [key])[key] or indicator(key).unit


def _same_unit(given: str, wanted: str) -> bool:
    return "".join(given.split()).casefold() == "".join(wanted.split()).casefold()


def read_answer(
    answer: CellAnswer,
    path: str,
    unit: str | None = None,
    given: Sequence[Evidence] | None = None,
) -> Answered:
    """The model's answer for the cell at path (its value in unit: cell_unit's, the
    indicator's by default), checked: a value that is not a finite number, a unit that cannot
    be converted to the cell's, a value out of bounds (errors), a source whose claim states no
    figure, or (given: a server without web search) that is not among the sources its tool
    gave (warnings; neither is evidence)."""
    key = parse_path(path)[2]
    unit = unit or indicator(key).unit
    read = Answered(
        kept={
            "value": answer.value,
            "unit": answer.unit,
            "assumptions": list(answer.assumptions),
            "calculation_steps": list(answer.calculation_steps),
            "message": answer.message,
            "by": "model",
        },
        confidence=Confidence(answer.confidence),
        unit=unit,
        new_assumptions=answer.new_assumptions.strip(),
        level=answer.new_assumptions_level,
    )

    def issue(code: str, severity: Severity, message: str, **details: Any) -> None:
        read.issues.append(Issue(code, severity, path, message, details))

    for caveat in answer.caveats:
        issue("model_caveat", Severity.info, caveat)
    if answer.value is None or not math.isfinite(answer.value):
        read.kept |= {"outcome": "not calculated", "error": "The model gave no value."}
        return read
    value = answer.value
    if not _same_unit(answer.unit, unit):
        try:
            value = convert(value, answer.unit, unit)
        except UnitMismatch as exc:
            issue(
                "unit_mismatch",
                Severity.error,
                f"The model answered in “{answer.unit}”, not {unit}: {exc}",
                unit=answer.unit,
            )
        else:
            issue(
                "unit_converted",
                Severity.info,
                f"{answer.value:g} {answer.unit} converted to {value:g} {unit}.",
            )
    read.value = value
    read.issues += [
        Issue(i.code, i.severity, path, i.message, i.details) for i in check(key, value)
    ]
    now = datetime.now(UTC).isoformat()
    offered = {e.source_url for e in given or ()}
    for source in answer.sources:
        if given is not None and source.url not in offered:
            issue(
                "source_not_given",
                Severity.warning,
                f"“{source.title}” was not among the sources the calculators gave, and this "
                "server cannot search the web: it is not evidence.",
                url=source.url,
            )
            continue
        if not states_a_figure(source.claim):
            issue(
                "source_without_figure",
                Severity.warning,
                f"“{source.title}” is cited without the figure it gives: it is not evidence.",
                url=source.url,
            )
            continue
        evidence = Evidence(source.url, source.title, source.claim, SourceKind.web, now)
        if evidence.source_url:
            read.evidence.append(evidence)
        else:
            issue(
                "source_without_address",
                Severity.warning,
                f"“{source.title}” has no web address: it is not evidence.",
            )
    if not read.evidence:
        issue(
            "no_evidence",
            Severity.warning,
            "No cited source states a figure this value rests on: check its steps.",
        )
    errors = any(i.severity == Severity.error for i in read.issues)
    read.kept["outcome"] = "out of bounds" if errors else "suggested"
    read.kept["value"] = value
    read.kept["unit"] = unit
    return read


def ask(
    settings: Settings,
    system: Mapping[str, Any],
    document: Mapping[str, Any],
    path: str,
    conversation: Sequence[Mapping[str, Any]] = (),
    message: str = "",
) -> Answered:
    """The model asked for the cell at path, its calculators offered as a tool: for a value a
    calculator handles, called first (a server that ignores tools raises ToolsIgnored, its
    answer unused). Raises ProviderError (with what was used) when the server fails."""
    client = StructuredClient(settings)
    usage = Usage()
    step_id, intervention_id, key, _status = parse_path(path)
    given: list[Evidence] = []
    result = client.ask_structured(
        CellAnswer,
        INSTRUCTIONS if client.searches_the_web else INSTRUCTIONS + OFFLINE_SOURCES,
        describe(system, document, path, conversation, message),
        usage,
        tools=[calculator_tool(document, step_id, intervention_id or "", given)],
        answer_tokens=ANSWER_TOKENS,
        call_first=key in CALCULATORS,
    )
    if result.answer is None:
        problems = "; ".join(result.problems)
        read = Answered(
            kept={
                "outcome": "not calculated",
                "error": f"The model's answer was unusable: {problems}",
            },
            issues=[Issue("answer_invalid", Severity.error, path, problems)],
        )
    else:
        offered = None if client.searches_the_web else given
        read = read_answer(result.answer, path, cell_unit(document, path), offered)
    read.usage = usage
    return read

"""What a grid cell's drawer tells about one value, as plain data: its review state in words,
who made it (from its audit rows), its conversation as a readable thread, and the assumptions
in effect with the level each comes from.

A conversation is stored input (imported files, a model's answers): any shape is read without
failing, and whatever is not text or a list of texts is left out rather than shown as a repr."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from webapp.numbers import display_number
from webapp.systems.assumptions import Assumptions, find_step, resolve_for
from webapp.systems.assumptions import resolve as resolve_levels
from webapp.systems.conversation import seed_action

LEVEL_WORDS = {
    "step_name": "the step's name (its crop)",
    "system": "system",
    "step": "step",
    "proposed": "proposed from the description",
    "intervention": "intervention",
}
# Where an assumption set differently at another level stands, as a flag says it.
OTHER_LEVEL_WORDS = {
    "step_name": "the step's name says",
    "system": "the system says",
    "step": "the step says",
    "proposed": "the description proposes",
    "intervention": "the intervention says",
}
ROLE_WORDS = {"system": "Task", "assistant": "Assistant", "user": "Person"}
ACTION_WORDS = {
    "approve": "approved the value",
    "manual_edit": "edited the value",
    "refine": "asked to refine",
    "calculate": "asked to calculate",
}
SOURCE_WORDS = {
    "manual": "entered",
    "apply": "applied from a suggestion",
    "import": "imported",
    "undo": "restored by an undo",
    "decide": "decided",
    "plan": "planned",
}


@dataclass(frozen=True)
class Made:
    """One audit row of a value, as the drawer reads it."""

    field: str
    source: str
    user: str | None
    at: datetime
    new: Any
    group: str = ""


def made_by(path: str, changes: Iterable[Made]) -> list[str]:
    """Who set the value and who approved it since: "entered by Ann on 2026-11-26 09:00 UTC".
    changes: the value's audit rows, newest first."""
    said = []
    rows = list(changes)
    value = next((c for c in rows if c.field == path), None)
    if value is not None:
        said.append(_who(SOURCE_WORDS.get(value.source, "changed"), value))
    # An approval is a person's review status set on its own, after the value (an edit sets
    # both in one group).
    approval = next((c for c in rows if c.field == f"{path}.reviewed"), None)
    if (
        approval is not None
        and (approval.new, approval.source) == (True, "manual")
        and (value is None or (approval.group != value.group and approval.at >= value.at))
    ):
        said.append(_who("approved", approval))
    return said


def _who(done: str, change: Made) -> str:
    """ "imported by Ann on …"; a change made with no one signed in (a command) names no one."""
    by = f" by {change.user}" if change.user else ""
    return f"{done}{by} on {change.at:%Y-%m-%d %H:%M} UTC"


@dataclass(frozen=True)
class Source:
    title: str
    url: str
    claim: str


@dataclass
class Said:
    """One message of a value's conversation, readable."""

    role: str
    text: str = ""
    timestamp: str = ""
    action: str = ""
    change: str = ""
    value: str = ""
    confidence: str = ""
    assumptions: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)


def thread(conversation: Any) -> list[Said]:
    """The conversation as messages people read; an assistant's JSON answer as its parts."""
    if not isinstance(conversation, list):
        return []
    return [_said(m) for m in conversation if isinstance(m, Mapping)]


def _said(message: Mapping[str, Any]) -> Said:
    role = message.get("role")
    said = Said(ROLE_WORDS.get(role, "Message") if isinstance(role, str) else "Message")
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    parts: Mapping[str, Any] = message
    answer = _json_object(text) if role == "assistant" else None
    if answer is not None:
        parts = {**message, **answer}
        text = _text(answer.get("content") or answer.get("message") or answer.get("answer"))
    said.text = text
    said.timestamp = _text(message.get("timestamp"))
    action = _text(seed_action(message.get("action")))
    said.action = ACTION_WORDS.get(action, action)
    before, after = message.get("previous_value"), message.get("new_value")
    if (_number(before) or _number(after)) and before != after:
        said.change = f"{_shown(before)} → {_shown(after)}"
    if "value" in parts:
        said.value = " ".join(t for t in (_shown(parts["value"]), _text(parts.get("unit"))) if t)
    said.confidence = _text(parts.get("confidence"))
    said.assumptions = texts(parts.get("assumptions"))
    said.steps = texts(parts.get("calculation_steps"))
    said.sources = _sources(parts.get("sources"))
    said.caveats = texts(parts.get("caveats"), "message")
    return said


def _json_object(text: str) -> dict[str, Any] | None:
    if not text.lstrip().startswith("{"):
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    if _number(value):
        return str(display_number(value))
    return _text(value) or "—"


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def texts(values: Any, key: str = "") -> list[str]:
    """A list's texts (or the key of its objects, as caveats are Issue dicts)."""
    if not isinstance(values, list):
        return []
    found = [_text(v.get(key) if key and isinstance(v, Mapping) else v) for v in values]
    return [t for t in found if t]


def _sources(values: Any) -> list[Source]:
    """Sources as the seed writes them (plain titles) or as Evidence dicts."""
    if not isinstance(values, list):
        return []
    found = []
    for v in values:
        if isinstance(v, Mapping):
            title = _text(v.get("title"))
            url = _text(v.get("source_url") or v.get("url"))
            claim = _text(v.get("claim_summary") or v.get("claim"))
            if title or url or claim:
                found.append(Source(title or url, url, claim))
        elif text := _text(v):
            found.append(Source(text, "", ""))
    return found


@dataclass(frozen=True)
class InEffect:
    key: str
    value: str
    level: str  # in words
    proposed: bool
    flags: tuple[str, ...] = ()  # the key set differently at two levels, in words


def assumptions_in_effect(
    document: Mapping[str, Any], step_id: str, intervention_id: str | None
) -> list[InEffect]:
    """Each assumption that holds for the intervention (or, for a step's own value, the step),
    with the level it comes from and what another level says differently."""
    if intervention_id is None:
        step = find_step(document, step_id)
        held: Assumptions = resolve_levels(
            document.get("assumptions"), step.get("assumptions"), crop=step.get("name")
        )
    else:
        held = resolve_for(document, step_id, intervention_id)
    flags: dict[str, list[str]] = {}
    for issue in held.issues:
        (other, _used), (value, _) = issue.details["levels"], issue.details["values"]
        flags.setdefault(issue.field or "", []).append(
            f"{OTHER_LEVEL_WORDS.get(other, other)} “{value}”"
        )
    return [
        InEffect(
            a.key,
            a.value,
            LEVEL_WORDS.get(a.level, a.level),
            a.level == "proposed",
            tuple(flags.get(a.key, ())),
        )
        for a in held.chosen.values()
    ]

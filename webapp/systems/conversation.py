"""The conversation a value keeps (seed 003): who asked what and what was answered, at most
MOST_MESSAGES messages — the oldest go first, the system message (what the value is) stays."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

MOST_MESSAGES = 10
# What a person's message did, by seed 003's names (manual_edit, approve, refine), and
# calculate, which the seed does not name: a person asked for a value to be worked out.
ACTIONS = ("manual_edit", "approve", "refine", "calculate")
# Names documents stored before they followed the seed: read (and written back) as the seed's.
EARLIER_ACTIONS = {"edit": "manual_edit"}


def seed_action(action: Any) -> Any:
    """An action as seed 003 names it (an earlier name mapped, anything else as it is)."""
    return EARLIER_ACTIONS.get(action, action) if isinstance(action, str) else action


def pruned(messages: Sequence[Mapping[str, Any]], most: int = MOST_MESSAGES) -> list[dict]:
    """messages cut to most: the first system message kept, then the newest of the rest."""
    kept = [dict(m) for m in messages]
    system = next((m for m in kept if m.get("role") == "system"), None)
    rest = [m for m in kept if m is not system]
    room = most - (system is not None)
    newest = rest[len(rest) - room :] if room > 0 else []
    return ([system] if system is not None else []) + newest


def system_message(content: str, stamp: str) -> dict[str, Any]:
    return {"role": "system", "content": content, "timestamp": stamp}


def user_message(
    content: str, action: str, previous_value: Any, new_value: Any, stamp: str
) -> dict[str, Any]:
    """What a person did to the value (one of ACTIONS) and the value before and after."""
    if action not in ACTIONS:
        raise ValueError(f"action is one of {', '.join(ACTIONS)}")
    return {
        "role": "user",
        "content": content,
        "action": action,
        "previous_value": previous_value,
        "new_value": new_value,
        "timestamp": stamp,
    }


def assistant_message(answer: Mapping[str, Any], stamp: str) -> dict[str, Any]:
    """An answer (a calculator's or the model's, in the seed's fields) as the seed keeps it:
    its text, then its assumptions, steps, sources (by title), confidence and caveats; and a
    calculator's value with the inputs it read, which the value remembers (webapp.systems.stale)."""
    inputs = answer.get("inputs")
    calculated = {"value": answer.get("value"), "inputs": dict(inputs)} if inputs else {}
    # An answer that gave no value is kept for the record, not read back to the model: it
    # echoed its own failures on the next Refine.
    unusable = {"unusable": True} if answer.get("value") is None else {}
    return (
        calculated
        | unusable
        | {
            "role": "assistant",
            "content": answer_text(answer),
            "assumptions": list(answer.get("assumptions") or []),
            "calculation_steps": list(answer.get("calculation_steps") or []),
            "sources": [
                s.get("title") or s.get("source_url", "") for s in answer.get("sources", [])
            ],
            "confidence": answer.get("confidence"),
            "caveats": [c.get("message", "") for c in answer.get("caveats", [])],
            "timestamp": stamp,
        }
    )


def answer_text(answer: Mapping[str, Any]) -> str:
    """The answer in a few lines: its value with unit (or that there is none), its steps."""
    value = answer.get("value")
    head = (
        f"{value:g} {answer.get('unit', '')}".strip()
        if isinstance(value, int | float)
        else "No value."
    )
    lines = [head, *(f"- {step}" for step in answer.get("calculation_steps") or [])]
    if note := answer.get("message"):
        lines.insert(0, str(note))
    return "\n".join(lines)


def transcript(messages: Sequence[Mapping[str, Any]]) -> str:
    """The conversation as the model reads it: one "role: text" block per message, without the
    answers that gave no value."""
    return "\n\n".join(
        f"{m.get('role', '')}: {m.get('content', '')}" for m in messages if not m.get("unusable")
    )

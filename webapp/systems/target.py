"""A system's values as the review core's target: a value's number, its review status and a
level's assumptions, written in the system's document; an applied value is told what it is (a
prediction, or the reviewer's own) and the answer it came from."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from flask import url_for
from sqlalchemy import select
from sqlalchemy.engine import Row

from webapp.auth.models import User
from webapp.database import among
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.problems import Invalid
from webapp.review.models import Suggestion
from webapp.review.targets import Applied, Changed, ReviewTarget, WriteRefused, register_target
from webapp.systems import document as doc
from webapp.systems.catalog import locked_document, store_document
from webapp.systems.conversation import assistant_message, pruned, system_message, user_message
from webapp.systems.grid import labeller
from webapp.systems.models import VALUE_TARGET, System


def _suggestions(ids: list[int]) -> dict[int, Row]:
    """The confidence, unit, evidence and issues of these suggestions, as plain rows."""
    columns = (Suggestion.id, Suggestion.unit, Suggestion.confidence, Suggestion.evidence)
    query = select(*columns, Suggestion.issues).where(among(db.session, Suggestion.id, ids))
    return {row.id: row for row in db.session.execute(query)}


def _answer(result: Mapping[str, Any], suggestion: Row | None) -> dict[str, Any]:
    """The answer a suggestion came from, in the seed's fields: the run's result for its cell
    (value, unit, assumptions, steps, the model's words, the inputs a calculator read) and the
    suggestion's confidence, sources and caveats."""
    return {
        "message": result.get("message", ""),
        "value": result.get("value"),
        "unit": result.get("unit") or (suggestion.unit if suggestion else "") or "",
        "assumptions": result.get("assumptions") or [],
        "calculation_steps": result.get("calculation_steps") or [],
        "sources": (suggestion.evidence or []) if suggestion else [],
        "confidence": suggestion.confidence if suggestion else None,
        "caveats": (suggestion.issues or []) if suggestion else [],
        # What a calculator read: the value is stale when one of them changes.
        "inputs": result.get("inputs") or {},
    }


def _told(entry: Mapping[str, Any], answer: Mapping[str, Any], name: str, stamp: str) -> list:
    """The messages that tell a value's conversation the answer it holds: none when the run
    told it already (a cell a person asked for: its question, then the answer), else the
    answer (begun with what the value is when the conversation is empty)."""
    conversation = entry.get("conversation") or []
    asked = [m for m in conversation if m.get("role") == "user"]
    if (
        asked
        and asked[-1].get("action") in ("calculate", "refine")
        and asked[-1].get("new_value") == answer["value"]
    ):
        return []
    said = [] if conversation else [system_message(f"{name}.", stamp)]
    return [*said, assistant_message(answer, stamp)]


def made_by(result: Mapping[str, Any] | None, applied: Any) -> str:
    """itinera's status of a value applied from a run's result for its cell."""
    result = result or {}
    if result.get("value") != applied:
        return "user"
    return "ia" if result.get("by") == "model" else "calculated"


class SystemValueTarget(ReviewTarget):
    """A system's values as the review core sees them: a field is a value's path in the
    document (its number), that path + ".reviewed" (its review status), or the path of a
    level's assumptions (its Markdown)."""

    kind = VALUE_TARGET
    label = "System"
    # A person's edit (a value, an outline's assumptions) is undone like an apply: a value
    # and its review status together.
    undo_sources = ("manual", "apply", "edit")

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        query = select(System.id, System.document).where(System.id.in_(list(ids)))
        return {
            i: doc.flat_values(document or {}) | doc.flat_assumptions(document or {})
            for i, document in db.session.execute(query)
        }

    def write_many(
        self,
        values: Mapping[int, Mapping[str, Any]],
        user: User | None,
        current: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> tuple[dict[int, Changed], list[WriteRefused]]:
        changed: dict[int, Changed] = {}
        refused: list[WriteRefused] = []
        # A value is written with the review status it has: after_apply says what an applied
        # one is (a prediction, or the reviewer's own), and an undo gives back what it
        # recorded. What changes is in `changed`, so the core audits it with the value.
        stamp = doc.now_stamp()
        for system_id, fields in values.items():
            system = db.session.get(System, system_id)
            if system is None:
                refused += [WriteRefused(system_id, f, "The system was deleted.") for f in fields]
                continue
            try:
                document, done = doc.write_fields(
                    locked_document(system), dict(fields), stamp, None
                )
            except Invalid as exc:
                refused += [WriteRefused(system_id, f, str(exc)) for f in fields]
                continue
            if done:
                store_document(system, document)
            changed[system_id] = done
        return changed, refused

    def after_apply(self, target_id: int, applied: Sequence[Applied], user: User | None) -> Changed:
        """What an applied value is besides its number, audited in the apply's group (one undo
        takes it all back): a calculator's or a model's value is a prediction (reviewed
        false, the suggestion's confidence, and the answer it came from in its conversation);
        a value the reviewer changed before applying it is theirs (reviewed). In a file whose
        values carry itinera's status, who made it: "ia", "calculated" or "user"."""
        system = db.session.get(System, target_id)
        items = [i for i in applied if not doc.ASSUMPTIONS_PATH.match(i.field)]
        if system is None or not items:
            return {}
        document = locked_document(system)
        runs = {item.run_id for item in items if item.run_id is not None}
        results = {
            run.id: run.results for run in db.session.scalars(select(Run).where(Run.id.in_(runs)))
        }
        suggestions = _suggestions([i.id for i in items])
        with_status = doc.uses_statuses(document)
        places, label_of, stamp = doc.Places(document), labeller(document), doc.now_stamp()
        fields: dict[str, Any] = {}
        for item in items:
            result = results.get(item.run_id, {}).get(item.field) or {}
            made = made_by(result, item.value)
            suggestion = suggestions.get(item.id)
            answer = _answer(result, suggestion)
            said = _told(places.entry(item.field) or {}, answer, label_of(item.field), stamp)
            if made == "user":
                said.append(
                    user_message(
                        f"Set to {item.value}.", "manual_edit", answer["value"], item.value, stamp
                    )
                )
            fields |= {
                item.field + doc.REVIEWED: made == "user",
                item.field + doc.CONFIDENCE: None if made == "user" else answer["confidence"],
            }
            if said:
                fields[item.field + doc.CONVERSATION] = pruned(
                    [*(places.entry(item.field) or {}).get("conversation", []), *said]
                )
            if with_status:
                fields[item.field + doc.STATUS] = made
        document, changed = doc.write_fields(document, fields, stamp)
        if changed:
            store_document(system, document)
        return changed

    def parse(self, field: str, raw: str) -> Any:
        return raw if doc.ASSUMPTIONS_PATH.match(field) else doc.read_number(raw)

    def names(self, ids: Collection[int]) -> dict[int, str]:
        query = select(System.id, System.name).where(System.id.in_(list(ids)))
        return dict(db.session.execute(query).all())

    def url(self, target_id: int) -> str | None:
        return url_for("systems.show", system_id=target_id)

    def history_url(self, target_id: int) -> str | None:
        return url_for("systems.show", system_id=target_id, _anchor="changes")

    def owns(self, ids: Collection[int], sources: Collection[str]) -> bool:
        """A group of one system's changes: a system is reviewed (and undone) on its own."""
        return super().owns(ids, sources) and len(ids) == 1

    def back_url(self, ids: Collection[int]) -> str | None:
        return url_for("systems.show", system_id=min(ids), _anchor="changes")

    def labels_of(self, target_id: int, fields: Iterable[str]) -> dict[str, str]:
        """A value by its step, intervention and indicator, as the system's grid names it."""
        system = db.session.get(System, target_id)
        label_of = labeller(system.document if system else {})
        return {f: label_of(f) for f in fields}


VALUES = register_target(SystemValueTarget())

"""Cultures as the review core's target: values written through the culture's field rules, an
apply adding the sources that state the applied values to its sources and notes; and cultures
named as people tell them apart."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from flask import url_for
from sqlalchemy import select

from webapp.auth.models import User
from webapp.cultures.catalog import (
    blocking,
    entry_findings,
    update_culture,
    values_of,
)
from webapp.cultures.domain import CultureInvalid
from webapp.cultures.forms import LABELS
from webapp.cultures.models import Culture, culture_label
from webapp.cultures.rules import unique_sources
from webapp.database import among
from webapp.extensions import db
from webapp.links import is_safe_link
from webapp.review.targets import Applied, Changed, ReviewTarget, register_target
from webapp.review.vocabulary import Evidence

TARGET = "culture"


class CultureRecords(ReviewTarget):
    """A target whose records are cultures (their fields, their current plan): named and
    linked as cultures."""

    def names(self, ids: Collection[int]) -> dict[int, str]:
        # Two lettuces are told apart by their variety.
        return culture_labels(ids)

    def url(self, target_id: int) -> str:
        return url_for("cultures.show", culture_id=target_id)

    def history_url(self, target_id: int) -> str:
        return url_for("cultures.show", culture_id=target_id, _anchor="history")


class CultureTarget(CultureRecords):
    """Cultures as the review core sees them: values written through the culture's field
    rules; an apply adds the sources that state the applied values to its sources and notes."""

    kind = TARGET
    label = "Culture"
    uses_evidence = True
    # A yield means nothing without its context: per plant or per m².
    together = (("expected_yield", "harvest_method"),)

    def _cultures(self, ids: Collection[int]) -> dict[int, Culture]:
        query = select(Culture).where(Culture.id.in_(list(ids)))
        return {c.id: c for c in db.session.scalars(query)}

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        return {i: values_of(c) for i, c in self._cultures(ids).items()}

    def write(self, target_id: int, values: Mapping[str, Any], user: User | None) -> Changed:
        return update_culture(db.session.get(Culture, target_id), dict(values))

    def new_errors(self, target_id: int, values: Mapping[str, Any]) -> dict[str, str]:
        """The culture as it will be, by the plausibility rules: a yield with no harvest method
        to give it context, or one judged per m² landing on a per-plant culture, is refused."""
        culture = db.session.get(Culture, target_id)
        try:
            found = entry_findings(dict(values), culture)
        except CultureInvalid:
            # The write itself refuses values a culture cannot hold, saying why.
            return {}
        return {issue.field: issue.message for issue in blocking(found)}

    def after_apply(self, target_id: int, applied: Sequence[Applied], user: User | None) -> Changed:
        """A derived figure's source does not state it: it is never listed as a citation."""
        culture = db.session.get(Culture, target_id)
        evidence = {
            a.field: [Evidence(**e) for e in a.evidence if not e.get("derived")] for a in applied
        }
        sources = unique_sources(evidence)
        if not sources:
            return {}
        # A source stored before only web addresses were taken is dropped, not re-refused.
        kept = [s for s in culture.structured_sources if not s["url"] or is_safe_link(s["url"])]
        known = {(s["url"], s["claim_summary"]) for s in kept}
        listed = [
            *kept,
            *(
                {
                    "title": e.title,
                    "url": e.source_url,
                    "claim_summary": e.claim_summary,
                    "retrieved_at": e.retrieved_at or "",
                }
                for e in sources
                if (e.source_url, e.claim_summary) not in known
            ),
        ]
        # Listed in the Sources field only: the notes are the person's (a copy there repeated
        # the Sources section below them).
        return update_culture(culture, {"structured_sources": listed})

    def field_label(self, field: str) -> str:
        return LABELS.get(field, field)

    def back_url(self, ids: Collection[int]) -> str | None:
        return super().back_url(ids) if len(ids) == 1 else url_for("cultures.index")


CULTURES = register_target(CultureTarget())


def culture_labels(ids: Collection[int]) -> dict[int, str]:
    """Cultures as people tell them apart: name and variety."""
    query = select(Culture.id, Culture.name, Culture.variety).where(
        among(db.session, Culture.id, ids)
    )
    return {i: culture_label(name, variety) for i, name, variety in db.session.execute(query)}

"""The reference library as evidence: a fact cited with its source, what every workspace's
offline answer and every model without web search cites."""

from __future__ import annotations

from webapp.reference.library import Crop, Fact
from webapp.review.vocabulary import Evidence, SourceKind


def evidence_for(fact: Fact) -> Evidence:
    return Evidence(
        source_url=fact.source.url,
        title=fact.source.title,
        claim_summary=fact.claim,
        source_kind=SourceKind.reference,
        derived=fact.derived,
    )


def reference_snippets(crop: Crop | None) -> list[Evidence]:
    """What the reference library holds on a crop, for servers without web search to cite."""
    return [evidence_for(fact) for fact in crop.facts.values()] if crop else []

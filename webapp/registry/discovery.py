"""Discovery and mapping: what kind of project document each file is (by what its first page's
title says, then the words of its first pages, its file name last; the reviewer corrects it),
and which kinds can hold the evidence of a requirement's category."""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum

from webapp.registry.pages import is_contents


class DocumentType(StrEnum):
    project_plan = "project_plan"
    baseline_report = "baseline_report"
    monitoring_report = "monitoring_report"
    ghg_emissions_report = "ghg_emissions_report"
    land_tenure = "land_tenure"
    map_gis = "map_gis"
    other = "other"


TYPE_LABELS = {
    DocumentType.project_plan: "Project plan",
    DocumentType.baseline_report: "Baseline report",
    DocumentType.monitoring_report: "Monitoring report",
    DocumentType.ghg_emissions_report: "GHG emissions report",
    DocumentType.land_tenure: "Land tenure",
    DocumentType.map_gis: "Map / GIS",
    DocumentType.other: "Other",
}

# Words that say a document's kind, most telling first; a name's words count more than text's.
SIGNS: dict[DocumentType, tuple[str, ...]] = {
    DocumentType.project_plan: ("project plan", "project design", "project description", "pdd"),
    DocumentType.baseline_report: ("baseline report", "baseline", "baseline sampling"),
    DocumentType.monitoring_report: ("monitoring report", "monitoring round", "monitoring"),
    DocumentType.ghg_emissions_report: (
        "ghg emissions",
        "greenhouse gas emissions",
        "emissions report",
        "emission",
        "ghg",
    ),
    DocumentType.land_tenure: (
        "land tenure",
        "deed",
        "lease agreement",
        "lease",
        "title",
        "tenure",
        "attestation",
    ),
    DocumentType.map_gis: ("shapefile", "gis", "map", "boundary", "kml", "geojson"),
}
# Content first, the file name last: an outdated plan saved as "land tenure.pdf" is a plan, and
# a monitoring report that speaks of emissions on every page is a monitoring report.
TITLE_WEIGHT = 20  # the kind its title names, earliest on the first page
TEXT_CAP = 5  # a kind's phrases counted in the first pages, at most this many times
NAME_WEIGHT = 3  # the kind its file name names
TITLE_LINES = 6  # a first page's title stands in its first lines
TITLE_WORDS = 12
TEXT_PAGES = 3  # the first pages say what a document is; its annexes do not

# Which kinds of document hold the evidence of each category (the checklist's categories);
# a category not listed is looked for in every document.
CATEGORY_SOURCES: dict[str, tuple[DocumentType, ...]] = {
    "General": (DocumentType.project_plan,),
    "Land Tenure": (DocumentType.land_tenure, DocumentType.project_plan),
    "Project Area": (DocumentType.map_gis, DocumentType.project_plan, DocumentType.baseline_report),
    "Project Boundary": (DocumentType.project_plan, DocumentType.map_gis),
    "Project Ownership": (DocumentType.project_plan, DocumentType.land_tenure),
    "Project Start Date": (DocumentType.project_plan,),
    "Ecosystem Type": (DocumentType.project_plan, DocumentType.baseline_report),
    "Crediting Period": (DocumentType.project_plan,),
    "GHG Accounting": (
        DocumentType.ghg_emissions_report,
        DocumentType.monitoring_report,
        DocumentType.baseline_report,
        DocumentType.project_plan,
    ),
    "Regulatory Compliance": (DocumentType.project_plan,),
    "Registration on Other Registries": (DocumentType.project_plan,),
    "Project Plan Deviations": (DocumentType.project_plan, DocumentType.monitoring_report),
    "Monitoring Plan": (DocumentType.project_plan, DocumentType.monitoring_report),
    "Risk Management": (DocumentType.project_plan, DocumentType.monitoring_report),
    "Safeguards": (DocumentType.project_plan, DocumentType.monitoring_report),
    # An issuance's (a monitoring round's): its monitoring report first.
    "Project Boundaries": (
        DocumentType.map_gis,
        DocumentType.monitoring_report,
        DocumentType.baseline_report,
    ),
    "Data Reporting": (DocumentType.monitoring_report, DocumentType.ghg_emissions_report),
    "Project Monitoring": (DocumentType.monitoring_report, DocumentType.ghg_emissions_report),
    "Monitoring Period": (DocumentType.monitoring_report,),
    "Soil Sampling": (DocumentType.monitoring_report, DocumentType.baseline_report),
    "SOC Analysis": (DocumentType.monitoring_report, DocumentType.baseline_report),
    "AI Processing": (DocumentType.monitoring_report,),
    "Image & Ancillary Data Processing": (DocumentType.monitoring_report,),
    "Results": (DocumentType.monitoring_report, DocumentType.baseline_report),
    "Emissions": (DocumentType.ghg_emissions_report, DocumentType.monitoring_report),
    # A round's buffer contribution and credits are its monitoring report's credit statement.
    "Buffer Pool": (DocumentType.monitoring_report,),
    "Credit Statement": (DocumentType.monitoring_report,),
    "Disclosures": (DocumentType.monitoring_report, DocumentType.other),
    "Monitoring Procedure Deviations": (DocumentType.monitoring_report,),
    "Verifier Requirements": (DocumentType.monitoring_report, DocumentType.other),
}


def _count(phrase: str, text: str) -> int:
    return len(re.findall(rf"(?<![a-z]){re.escape(phrase)}(?![a-z])", text))


def _earliest(phrases: tuple[str, ...], text: str) -> int | None:
    found = [
        m.start()
        for p in phrases
        for m in [re.search(rf"(?<![a-z]){re.escape(p)}(?![a-z])", text)]
        if m
    ]
    return min(found) if found else None


def classify(filename: str, first_pages: list[str]) -> DocumentType:
    """The document's kind: the kind its first page's title names first (a contents page
    skipped), then the kind whose
    phrases its first pages use most (each kind's counted at most TEXT_CAP times, so a kind
    with many words does not win by them), then the kind its file name names; other when none
    shows."""
    name = re.sub(r"[_\-.]+", " ", filename.lower())
    pages = [page.lower() for page in first_pages[:TEXT_PAGES]]
    # The title is on the first page that is no contents page (whose entries name sections).
    cover = next((page for page in pages if not is_contents(page, len(pages))), "")
    lines = [line.strip() for line in cover.splitlines() if line.strip()]
    # A title is a short line that is no sentence: "Monitoring will follow." names no kind.
    title = " ".join(
        line
        for line in lines[:TITLE_LINES]
        if len(line.split()) <= TITLE_WORDS and not line.endswith(".")
    )
    text = " ".join(pages)
    named_first = {
        kind: at for kind, phrases in SIGNS.items() if (at := _earliest(phrases, title)) is not None
    }
    titled = min(named_first, key=lambda kind: named_first[kind]) if named_first else None
    scores = {
        kind: TITLE_WEIGHT * (kind is titled)
        + min(sum(_count(p, text) for p in phrases), TEXT_CAP)
        + NAME_WEIGHT * any(_count(p, name) for p in phrases)
        for kind, phrases in SIGNS.items()
    }
    best = max(scores, key=lambda kind: scores[kind])
    return best if scores[best] else DocumentType.other


# The fields compared across documents are asked of every kind that states them, whatever the
# requirement's category: a plan, a baseline or monitoring report and the land-registry copies
# disagreeing on the project's ID, owner or area is what a cross-document review is for.
_REPORTS = (
    DocumentType.project_plan,
    DocumentType.baseline_report,
    DocumentType.monitoring_report,
)
FIELD_SOURCES: dict[str, tuple[DocumentType, ...]] = {
    "project_id": _REPORTS,
    "project_start_date": _REPORTS,
    "owner_name": (*_REPORTS, DocumentType.land_tenure),
    "area_hectares": (*_REPORTS, DocumentType.land_tenure, DocumentType.map_gis),
    "tenure_type": (DocumentType.project_plan, DocumentType.land_tenure),
    "crediting_period_years": (DocumentType.project_plan, DocumentType.monitoring_report),
    "crediting_period_start": (DocumentType.project_plan, DocumentType.monitoring_report),
    "crediting_period_end": (DocumentType.project_plan, DocumentType.monitoring_report),
    # The credits of a round and its buffer contribution: only its monitoring report states them.
    "credits_issued": (DocumentType.monitoring_report,),
    "credits_pending_issue": (DocumentType.monitoring_report,),
    "credits_total": (DocumentType.monitoring_report,),
    "buffer_credits": (DocumentType.monitoring_report,),
}


def sources_for(category: str, fields: Iterable[str] = ()) -> tuple[DocumentType, ...]:
    """The kinds of document a requirement's evidence is looked for in: its category's, and
    every kind that states one of its cross-checked fields."""
    kinds = list(CATEGORY_SOURCES.get(category, tuple(DocumentType)))
    for name in fields:
        kinds += [kind for kind in FIELD_SOURCES.get(str(name), ()) if kind not in kinds]
    return tuple(kinds)

"""Discovery and mapping: what kind of project document each file is (by its name, then by the
words of its first pages; the reviewer corrects it), and which kinds can hold the evidence of
a requirement's category."""

from __future__ import annotations

import re
from enum import StrEnum


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
NAME_WEIGHT = 5
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
}


def _count(phrase: str, text: str) -> int:
    return len(re.findall(rf"(?<![a-z]){re.escape(phrase)}(?![a-z])", text))


def classify(filename: str, first_pages: list[str]) -> DocumentType:
    """The document's kind: the kind whose signs its name and first pages show most (longer
    phrases first: "monitoring report" before "monitoring"); other when none shows."""
    name = re.sub(r"[_\-.]+", " ", filename.lower())
    text = " ".join(first_pages[:TEXT_PAGES]).lower()
    scores: dict[DocumentType, int] = {}
    for kind, phrases in SIGNS.items():
        weight = len(phrases)
        score = 0
        for phrase in phrases:
            score += weight * (NAME_WEIGHT * _count(phrase, name) + min(_count(phrase, text), 5))
            weight -= 1
        scores[kind] = score
    best = max(scores, key=lambda kind: scores[kind])
    return best if scores[best] else DocumentType.other


def sources_for(category: str) -> tuple[DocumentType, ...]:
    """The kinds of document a category's evidence is looked for in."""
    return CATEGORY_SOURCES.get(category, tuple(DocumentType))

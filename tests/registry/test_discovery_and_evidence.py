"""Which document is which, where a requirement's evidence is, and a requirement's status."""

import pytest

from webapp.registry.checklist import bundled
from webapp.registry.discovery import DocumentType, classify, sources_for
from webapp.registry.evidence import (
    Coverage,
    Passage,
    SourceDocument,
    coverage,
    find_evidence,
    passages,
    terms_of,
)
from webapp.registry.pages import PageKind, pages_of
from webapp.review.vocabulary import Evidence, SourceKind

CHECKLIST = bundled()
TENURE = CHECKLIST.requirement("REQ-002")
MONITORING = CHECKLIST.requirement("REQ-017")


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        ("Project_Plan_v3.pdf", "", DocumentType.project_plan),
        ("2023-monitoring-report.pdf", "", DocumentType.monitoring_report),
        ("Baseline Report.pdf", "Monitoring will follow.", DocumentType.baseline_report),
        ("Denman deed.pdf", "", DocumentType.land_tenure),
        ("boundary.kml.txt", "", DocumentType.map_gis),
        (
            "scan-0042.pdf",
            "GHG emissions report for the 2023 reporting period.",
            DocumentType.ghg_emissions_report,
        ),
        ("notes.md", "Lunch menu for the field day.", DocumentType.other),
        # Content first: the title a first page gives, then the words of the first pages.
        (
            "Land tenure evidence - outdated.pdf",
            "Denman Farm Soil Carbon Project\nPROJECT PLAN\nVersion 1.2, March 2023\n\n"
            "1.7 Land tenure: the land is owned freehold by the project owner.",
            DocumentType.project_plan,
        ),
        (
            "round-1.pdf",
            "Denman Farm\nMonitoring Report: GHG emission reductions 2023\n\n"
            + "The GHG emissions of the project and its emission reductions. " * 20,
            DocumentType.monitoring_report,
        ),
        (
            "appendix.pdf",
            "This appendix lists the GHG emissions. The emissions report follows the "
            "baseline report, and the GHG emissions are in tCO2e.",
            DocumentType.ghg_emissions_report,
        ),
    ],
)
def test_documents_are_classified_by_their_content_then_by_their_name(name, text, kind):
    assert classify(name, [text]) is kind


def test_a_category_maps_to_the_documents_that_hold_its_evidence():
    assert sources_for("Land Tenure") == (DocumentType.land_tenure, DocumentType.project_plan)
    assert set(sources_for("A category of another checklist")) == set(DocumentType)


def document(key, name, kind, *pages):
    return SourceDocument(key, name, kind, pages_of(list(pages)))


PLAN = document(
    1,
    "Project plan.pdf",
    DocumentType.project_plan,
    "Contents\n1 Overview ..... 2\n2 Land tenure ..... 3\n3 Monitoring plan ..... 4\n",
    "1 Overview\nThe project restores grassland soils on a farm in Kent.",
    "2 Land tenure\nThe farm is held under a lease agreement; the landowner approval is "
    "attached as a legal attestation of long-term control for the crediting period.",
    "3 Monitoring plan\nSoil is sampled to 30 cm every five years at 40 stratified points by "
    "the farm manager, following the soil sampling protocols; remote sensing details of "
    "each field are kept with the monitoring schedules.",
    "",
)
DEED = document(
    2,
    "Deed.pdf",
    DocumentType.land_tenure,
    "Deed of ownership. This deed confirms ownership of the land and long-term control.",
)


def test_evidence_comes_with_document_page_and_section_never_from_a_contents_page():
    snippets = find_evidence(TENURE, [PLAN, DEED])
    assert snippets and all(s.page != 1 for s in snippets if s.document_key == 1)
    best = snippets[0]
    assert (best.document, best.page, best.section) == ("Project plan.pdf", 3, "2 Land tenure")
    assert "lease agreement" in best.text and 0 < best.confidence <= 0.6
    assert best.fields == {}  # never read out of the text offline
    assert PLAN.pages[0].kind is PageKind.contents and PLAN.pages[4].kind is PageKind.no_text
    monitoring = find_evidence(MONITORING, [PLAN, DEED])
    assert monitoring[0].page == 4 and monitoring[0].section == "3 Monitoring plan"
    assert {s.document for s in monitoring} == {"Project plan.pdf"}  # deeds hold no plan


def test_terms_and_passages():
    assert terms_of(MONITORING)[:3] == ["monitoring", "schedules", "soil"]
    sentences = pages_of(["A line of text.\n" * 200])[0]
    chunks = list(passages(sentences))
    assert len(chunks) > 1 and all(len(text) <= 620 for _offset, text in chunks)
    # A passage is cut where a sentence ends, or at twice its length when none does.
    run_on = pages_of(["line of text\n" * 200])[0]
    chunks = list(passages(run_on))
    assert len(chunks) > 1 and all(len(text) <= 1220 for _offset, text in chunks)


def test_coverage_of_each_validation_type():
    snippets = find_evidence(TENURE, [PLAN, DEED])
    assert coverage(TENURE, snippets, []) is Coverage.needs_input
    assert coverage(TENURE, [], []) is Coverage.missing
    assert coverage(TENURE, snippets, ["owner_name"]) is Coverage.partial
    assert (
        coverage(TENURE, snippets, ["owner_name", "area_hectares", "tenure_type"])
        is Coverage.covered
    )
    assert coverage(MONITORING, find_evidence(MONITORING, [PLAN]), []) is Coverage.covered
    assert coverage(MONITORING, [], []) is Coverage.missing
    assert coverage(CHECKLIST.requirement("REQ-016"), [], []) is Coverage.needs_input


def test_a_passage_that_starts_with_its_heading_stands_under_it():
    page = pages_of(
        [
            "1 Overview\nThe project restores grassland soils on a farm in Kent.\n\n"
            "2 Land tenure\nThe farm is held under a lease agreement; the landowner approval "
            "is attached as a legal attestation of long-term control for the crediting period."
        ]
    )
    plan = SourceDocument(1, "plan.md", DocumentType.project_plan, page)
    (tenure,) = find_evidence(TENURE, [plan])
    assert tenure.text.startswith("2 Land tenure") and tenure.section == "2 Land tenure"


def test_a_passage_is_core_evidence_stored_as_the_core_stores_it_and_old_rows_still_read():
    text = "The farm is owned by Nicholas Denman."
    passage = Passage.at(2, "plan.pdf", 4, "2.1 Land", text, 0.6, {"owner_name": "Nicholas Denman"})
    assert isinstance(passage, Evidence) and passage.source_kind == SourceKind.document
    stored = passage.to_dict()
    assert set(stored) == set(Evidence("", "", "").to_dict()) | {"confidence"}
    assert (stored["title"], stored["claim_summary"]) == ("plan.pdf", text)
    assert stored["locator"] == {
        "document": "plan.pdf", "document_id": 2, "page": 4, "section": "2.1 Land",
    }  # fmt: skip
    assert stored["fields"] == {"owner_name": "Nicholas Denman"}
    assert Passage.from_dict(stored) == passage
    # The API's shape, which is how rows were stored before.
    old = passage.snippet_dict()
    assert old == {
        "document_id": 2, "document": "plan.pdf", "page": 4, "section": "2.1 Land",
        "text": text, "confidence": 0.6, "structured_fields": {"owner_name": "Nicholas Denman"},
    }  # fmt: skip
    assert Passage.from_dict(old) == passage
    older = {k: v for k, v in old.items() if k not in ("document_id", "structured_fields")}
    read = Passage.from_dict(older)
    assert (read.document_key, read.page, read.text, read.fields) == (0, 4, text, {})
    assert read.snippet_dict()["structured_fields"] is None

"""Real public documents no one here wrote: short exact passages of the Botany Farm Partnership
soil-carbon project (its public project plan, 2022 baseline report and 2023 monitoring report,
from github.com/gaiaaiagent/regen-registry-review-mcp; sources and commits in
tests/registry/data/botany/README.md), read as Markdown documents and assessed offline by the
same plain functions the run uses. Only what Furrow gets right on them today is asserted: each
document's kind, the passages that answer a requirement found as its evidence, the project ID
and dates as the plan writes them, and the checks over the figures the documents state."""

from datetime import date
from pathlib import Path

import pytest

from webapp.registry.answers import answer_units, asked_in, states_any
from webapp.registry.assessment import RequirementResult, assess
from webapp.registry.checklist import StructuredField as F
from webapp.registry.checklist import bundled
from webapp.registry.dates import DateStyle, date_style, dates_in
from webapp.registry.discovery import DocumentType, classify
from webapp.registry.evidence import Coverage, SourceDocument
from webapp.registry.pages import text_pages
from webapp.registry.rules import FieldValue, Status, project_id_problem, validate

TODAY = date(2026, 11, 27)
DATA = Path(__file__).parent / "data" / "botany"
PLAN = "4997Botany22_Public_Project_Plan.md"
BASELINE = "4997Botany22_Soil_Organic_Carbon_Project_Public_Baseline_Report_2022.md"
MONITORING = "4998Botany23_Soil_Organic_Carbon_Project_Public_Monitoring_Report_2023.md"
DOCUMENTS = {"plan": PLAN, "baseline": BASELINE, "monitoring": MONITORING}


def excerpt(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def text_of(prefix: str) -> str:
    """A document's excerpts in its order, a blank line between: one Markdown document."""
    return "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(DATA.glob(f"{prefix}-*.md")))


@pytest.fixture(scope="module")
def sources() -> list[SourceDocument]:
    found = []
    for key, (prefix, name) in enumerate(DOCUMENTS.items(), start=1):
        pages = text_pages(text_of(prefix))
        found.append(SourceDocument(key, name, classify(name, [p.text for p in pages[:3]]), pages))
    return found


@pytest.fixture(scope="module")
def results(sources) -> dict[str, RequirementResult]:
    found = assess(bundled(), sources, {}, today=TODAY)
    return {r.requirement.requirement_id: r for r in found.requirements}


def evidence(result: RequirementResult, words: str) -> list[str]:
    """The sections of the requirement's snippets whose passage holds these words."""
    return [s.section or "" for s in result.snippets if words in " ".join(s.text.split())]


def test_the_excerpts_are_short_quotes():
    files = sorted(DATA.glob("*-*.md"))
    assert len(files) == 19
    assert all(0 < len(f.read_text(encoding="utf-8").rstrip("\n")) <= 600 for f in files)


def test_each_document_is_told_by_its_cover(sources):
    kinds = {s.name: s.type for s in sources}
    assert kinds == {
        PLAN: DocumentType.project_plan,
        BASELINE: DocumentType.baseline_report,
        MONITORING: DocumentType.monitoring_report,
    }


def test_statements_that_answer_are_covered_by_their_passage(results):
    # §3.1 Prior Land Use Eligibility: "no change in land use or ecosystem type in the previous
    # 5 years prior to the project start date" answers the conditions of applicability.
    prior = results["REQ-009"]
    assert prior.coverage is Coverage.covered
    assert " ".join(prior.snippets[0].text.split()).startswith(
        "Historic management plans reported in Appendix A show no change in land use"
    )
    # §1.4: the landowner's attestation of regulatory compliance answers REQ-014.
    compliance = results["REQ-014"]
    assert compliance.coverage is Coverage.covered
    assert evidence(compliance, "attested to maintaining material regulatory compliance")


def test_the_owner_and_the_tenure_are_evidence_of_land_tenure(results):
    tenure = results["REQ-002"]
    assert tenure.coverage is Coverage.needs_input  # its fields are a person's to enter
    assert evidence(tenure, "Land ownership/tenure has been demonstrated by adequate documentation")
    owned = "The Project Area is 100% owned by the Project Owner, Nick Denman."
    assert evidence(tenure, owned) == ["1.7. Project Ownership"]


def test_the_start_date_is_stated_under_its_section(results):
    start = results["REQ-007"]
    assert start.coverage is Coverage.needs_input
    best = start.snippets[0]
    assert best.section == "1.8. Project Start Date"
    assert "01/01/2022. The project will be aligned with the calendar year" in best.text
    requirement = start.requirement
    units = answer_units(best.text, requirement, asked_in(bundled()))
    assert states_any([F.project_start_date], units)
    assert [d.value for d in dates_in(" ".join(units))] == [date(2022, 1, 1)]


def test_the_periods_and_figures_are_found_where_the_plan_gives_them(results):
    assert evidence(results["REQ-010"], "01/01/2022 to 31/12/2031.") == [
        "1.9. Project Crediting Period"
    ]
    permanence = "The Credit Class requires a 10-year permanence period"
    assert evidence(results["REQ-013"], permanence) == ["1.10. Permanence Period"]
    leakage = "Project Activity Leakage is considered to be de minimis"
    assert evidence(results["REQ-012"], leakage) == ["4.3. Leakage"]
    assert evidence(results["REQ-018"], "A buffer pool contribution of 20% of each credit issuance")
    for rid in ("REQ-010", "REQ-012", "REQ-013", "REQ-018"):
        assert results[rid].coverage is Coverage.needs_input


def test_the_no_net_harm_statement_is_evidence_of_safeguards(results):
    safeguards = results["REQ-019"]
    assert safeguards.coverage in (Coverage.partial, Coverage.covered)
    assert evidence(safeguards, "no negative environmental impacts have been identified")
    assert evidence(results["REQ-022"], "No negative environmental impacts were identified.") == [
        "2.3. Environmental Impact"
    ]


def test_the_project_ids_as_the_documents_write_them():
    assert "Botany Farm Partnership (4997Botany22)" in excerpt("plan-02-general-information.md")
    assert project_id_problem("4997Botany22") == (None, None)
    assert project_id_problem("4998Botany23") == (None, None)  # the 2023 report's file name
    assert project_id_problem("C06-006") == (None, None)  # the ID the registry's review gives


def test_the_plan_writes_dates_day_first():
    assert date_style(excerpt("plan-06-crediting-period.md")) is DateStyle.day_first


def stated(field: F, value: str, document: str, page: int, source: str) -> FieldValue:
    """A value as a reviewer enters it, from the excerpt that states it."""
    assert value in excerpt(source), (value, source)
    key = list(DOCUMENTS.values()).index(document) + 1
    return FieldValue(field, value, document, page, DateStyle.day_first, key)


def test_the_checks_over_what_the_documents_state():
    summary = "monitoring-02-executive-summary.md"
    values = [
        stated(F.project_id, "4497Botany22", PLAN, 1, "plan-01-title.md"),
        stated(F.project_id, "4997Botany22", PLAN, 4, "plan-02-general-information.md"),
        stated(F.owner_name, "Nick Denman", PLAN, 7, "plan-04-ownership.md"),
        stated(F.project_start_date, "01/01/2022", PLAN, 7, "plan-05-start-date.md"),
        stated(F.crediting_period_start, "01/01/2022", PLAN, 8, "plan-06-crediting-period.md"),
        stated(F.crediting_period_end, "31/12/2031", PLAN, 8, "plan-06-crediting-period.md"),
        stated(F.crediting_period_years, "10 years", PLAN, 6, "plan-03-eligibility.md"),
        stated(F.permanence_period_years, "10-year", PLAN, 8, "plan-07-permanence.md"),
        stated(F.buffer_pool_percentage, "20%", PLAN, 24, "plan-14-buffer-pool.md"),
        stated(F.area_hectares, "82.08", BASELINE, 2, "baseline-02-project-outline.md"),
        stated(F.soc_change_tco2e, "728.42", MONITORING, 2, summary),
        stated(F.project_emissions_tco2e, "121.90", MONITORING, 2, summary),
        stated(F.leakage_tco2e, "9.90", MONITORING, 2, summary),
        stated(F.net_reductions_tco2e, "596.62", MONITORING, 2, summary),
        stated(F.buffer_credits, "120", MONITORING, 2, summary),
        stated(F.credits_pending_issue, "476", MONITORING, 2, summary),
        stated(F.credits_total, "596", MONITORING, 2, summary),
    ]
    checks = {c.check: c for c in validate(values, TODAY)}
    # The real figures add up: 728.42 − 121.90 − 9.90 = 596.62; 20 % of 596 ≈ 120;
    # 120 + 476 = 596; 01/01/2022 to 31/12/2031 is 10 years.
    for name in ("net_balance", "buffer_share", "credit_statement", "crediting_period_span"):
        assert checks[name].status is Status.passed, checks[name].message
    assert checks["owner_name_present"].status is Status.passed
    assert checks["project_start_date_present"].status is Status.passed
    # The plan's title writes 4497Botany22 where its table writes 4997Botany22: told apart.
    differ = checks["project_id_consistent"]
    assert differ.status is Status.failed
    assert "4497Botany22" in differ.message and "4997Botany22" in differ.message

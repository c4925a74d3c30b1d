"""Covered means the requirement is answered, on whole submissions: a blank registry template
(the checklist's questions, headings and prompts only) scores 0 Covered offline, and the
generated submission of 16 PDFs / 159 pages has no requirement Covered that its documents do
not answer. The documents are read as the worker reads them, and assessed by the same plain
functions the run uses."""

from datetime import date

import pytest

from tests.registry import submission as made
from webapp.library.extract import pdf_pages
from webapp.registry.assessment import assess
from webapp.registry.checklist import bundled
from webapp.registry.discovery import classify
from webapp.registry.evidence import Coverage, SourceDocument
from webapp.registry.pages import pages_of

TODAY = date(2026, 11, 27)


def assessed(documents: dict[str, bytes]) -> dict[str, Coverage]:
    sources = []
    for key, (name, data) in enumerate(documents.items(), start=1):
        texts = pdf_pages(data)
        sources.append(SourceDocument(key, name, classify(name, texts[:3]), pages_of(texts)))
    found = assess(bundled(), sources, {}, today=TODAY)
    return {r.requirement.requirement_id: r.coverage for r in found.requirements}


def test_a_blank_template_scores_no_covered():
    statuses = assessed({made.BLANK_TEMPLATE: made.blank_template()})
    assert statuses == {rid: Coverage(s) for rid, s in made.blank_truth().items()}


@pytest.fixture(scope="module")
def submission() -> dict[str, Coverage]:
    return assessed(made.documents())


def test_nothing_the_submission_leaves_unanswered_is_covered(submission):
    truth = made.offline_truth()
    wrong = [
        rid for rid, status in submission.items()
        if status is Coverage.covered and truth[rid] != Coverage.covered
    ]  # fmt: skip
    assert wrong == []
    # Only its question and "[Insert …]": never Covered (REQ-022 may show the safeguards'
    # answer as a passage to check, Partial, since it speaks of impacts).
    assert submission["REQ-022"] is not Coverage.covered
    assert submission["REQ-023"] is Coverage.missing


def test_what_the_submission_answers_is_found(submission):
    truth = made.offline_truth()
    # A requirement of fields is never Covered offline (values are a person's or the model's);
    # its passages make it "needs input".
    for rid in ("REQ-002", "REQ-007", "REQ-010", "REQ-012", "REQ-013", "REQ-018"):
        assert submission[rid] is Coverage(truth[rid]) is Coverage.needs_input
    answered = [rid for rid, status in truth.items() if status == Coverage.covered]
    assert all(submission[rid] in (Coverage.covered, Coverage.partial) for rid in answered)

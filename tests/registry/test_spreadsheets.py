"""Spreadsheets a submission carries are read, not refused: a CSV is one page of its filled
cells, each with its reference, so a passage says where its figure stands."""

import pytest

from tests.registry.test_pipeline_offline import assessed
from webapp.registry.checklist import bundled
from webapp.registry.sheets import MOST_CELLS, column_letters, csv_pages, sheet_text
from webapp.uploads import UploadRefused

FIGURES = (
    "Item;Value;Unit\n"
    "Credits issued;1 000;tCO2e\n"
    ";;\n"
    "Buffer Pool;146;tCO2e\n"
    "Buffer pool contribution (share of issuance);20;%\n"
)


@pytest.mark.parametrize(
    ("index", "letters"), [(0, "A"), (1, "B"), (25, "Z"), (26, "AA"), (27, "AB"), (701, "ZZ")]
)
def test_columns_are_lettered_as_spreadsheets_letter_them(index, letters):
    assert column_letters(index) == letters


def test_a_csv_is_one_page_of_cells_with_their_references():
    [page] = csv_pages(FIGURES)
    assert page.splitlines() == [
        "A1: Item | B1: Value | C1: Unit",
        "A2: Credits issued | B2: 1 000 | C2: tCO2e",
        "A4: Buffer Pool | B4: 146 | C4: tCO2e",
        "A5: Buffer pool contribution (share of issuance) | B5: 20 | C5: %",
    ]
    with pytest.raises(UploadRefused, match="more than 200,000 cells"):
        sheet_text([["x"]] * (MOST_CELLS + 1))


def test_a_csv_in_a_review_is_read_and_its_cells_are_evidence(make_user):
    files = {"Monitoring figures.csv": FIGURES.encode()}
    review, added, run = assessed(make_user("editor"), files)
    assert run.status == "succeeded", run.item_errors
    sheet = added["Monitoring figures.csv"]
    assert (sheet.kind, len(sheet.pages)) == ("csv", 1)
    buffer = bundled().requirement("REQ-018")
    [record] = [r for r in review.requirements if r.requirement_id == buffer.requirement_id]
    assert any("B4: 146" in s["text"] for s in record.snippets), record.snippets

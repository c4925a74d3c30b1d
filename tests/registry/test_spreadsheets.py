"""Spreadsheets a submission carries are read, not refused: a CSV is one page of its filled
cells, an Excel workbook a page per sheet under the sheet's name, each cell with its reference,
so a passage says where its figure stands. A workbook is only checked on upload (a ZIP holding
xl/workbook.xml, unpacking to a sane size); the run reads it in the sandbox."""

import datetime as dt
import io
import zipfile

import openpyxl
import pytest

from tests.registry.test_pipeline_offline import assessed
from tests.registry.test_review_api import REVIEWS, new_review
from tests.registry.test_review_api import upload as api_upload
from tests.registry.test_review_pages import assessed as assessed_on_page
from tests.registry.test_review_pages import create, newest_review
from tests.registry.test_review_pages import upload as page_upload
from tests.support.html import by_id
from tests.support.tables import run_here
from webapp.auth.models import ApiToken
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.library.sandbox import bounded_pages
from webapp.registry.checklist import bundled
from webapp.registry.models import ReviewDocument
from webapp.registry.runs import ReviewAssessment
from webapp.registry.sheets import (
    MOST_CELLS,
    MOST_UNPACKED_BYTES,
    NOT_XLSX,
    check_xlsx,
    column_letters,
    csv_pages,
    sheet_pages,
    xlsx_pages,
)
from webapp.uploads import UploadRefused

pytestmark = pytest.mark.usefixtures("idle_queue")

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
        sheet_pages([(None, [["x"]] * (MOST_CELLS + 1))])
    # The cells of all a workbook's sheets count together.
    half = [["x"]] * (MOST_CELLS // 2 + 1)
    with pytest.raises(UploadRefused, match="more than 200,000 cells"):
        sheet_pages([("One", half), ("Two", half)])


def test_a_csv_in_a_review_is_read_and_its_cells_are_evidence(make_user):
    files = {"Monitoring figures.csv": FIGURES.encode()}
    review, added, run = assessed(make_user("editor"), files)
    assert run.status == "succeeded", run.item_errors
    sheet = added["Monitoring figures.csv"]
    assert (sheet.kind, len(sheet.pages)) == ("csv", 1)
    buffer = bundled().requirement("REQ-018")
    [record] = [r for r in review.requirements if r.requirement_id == buffer.requirement_id]
    assert any("B4: 146" in s["claim_summary"] for s in record.snippets), record.snippets


@pytest.fixture
def editor(make_user) -> dict[str, str]:
    _token, secret = ApiToken.issue(make_user("editor"), "tests")
    db.session.commit()
    return {"Authorization": f"Bearer {secret}"}


def workbook() -> bytes:
    """A workbook as a submission's figures come: a sheet of credits (a number, a date and a
    formula with the value the spreadsheet worked out) and a sheet of the buffer pool."""
    book = openpyxl.Workbook()
    credits = book.active
    credits.title = "Credits"
    credits.append(["Item", "Value", "Unit"])
    credits.append(["Credits issued", 1000, "tCO2e"])
    credits.append(["Issued on", dt.date(2024, 3, 31)])
    credits.append(["Net of buffer", "=B2-'Buffer pool'!B4", "tCO2e"])
    buffer = book.create_sheet("Buffer pool")
    for column, value in zip("ABC", ["Buffer Pool", 146, "tCO2e"], strict=True):
        buffer[f"{column}4"] = value  # rows 1 to 3 empty: the references keep their places
    for column, value in zip(
        "ABC", ["Buffer pool contribution (share of issuance)", 20, "%"], strict=True
    ):
        buffer[f"{column}5"] = value
    written = io.BytesIO()
    book.save(written)
    return with_cached_value(written.getvalue(), "xl/worksheets/sheet1.xml", "B4", "854")


def with_cached_value(data: bytes, part: str, cell: str, value: str) -> bytes:
    """The workbook with a formula's value as a spreadsheet program saves it (openpyxl writes
    formulas without one)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    written = io.BytesIO()
    with zipfile.ZipFile(written, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            body = source.read(info)
            if info.filename == part:
                xml = body.decode()
                start = xml.index(f'<c r="{cell}"')
                end = xml.index("</c>", start)
                formula = xml[start:end].replace("<v></v>", "").replace("<v />", "")
                xml = xml[:start] + formula + f"<v>{value}</v>" + xml[end:]
                body = xml.encode()
            target.writestr(info.filename, body)
    return written.getvalue()


CREDITS_PAGE = [
    "# Credits",
    "A1: Item | B1: Value | C1: Unit",
    "A2: Credits issued | B2: 1000 | C2: tCO2e",
    "A3: Issued on | B3: 2024-03-31",
    "A4: Net of buffer | B4: 854 | C4: tCO2e",
]
BUFFER_PAGE = [
    "# Buffer pool",
    "A4: Buffer Pool | B4: 146 | C4: tCO2e",
    "A5: Buffer pool contribution (share of issuance) | B5: 20 | C5: %",
]


def test_a_workbook_is_a_page_per_sheet_of_cells_with_their_references():
    pages = xlsx_pages(workbook())
    assert [page.splitlines() for page in pages] == [CREDITS_PAGE, BUFFER_PAGE]


def buffer_snippets(record) -> list[dict]:
    return [s for s in record["snippets"] if "B4: 146" in s["text"]]


def test_a_workbook_uploaded_through_the_api_is_read_by_the_run(client, editor):
    review = new_review(client, editor)
    added = api_upload(client, editor, review["id"], "Monitoring figures.xlsx", workbook())
    assert added.status_code == 201, added.get_json()
    document = added.get_json()
    # Stored and checked, not read: the run reads it in the sandbox.
    assert (document["kind"], document["pages"], document["error"]) == ("xlsx", None, None)
    started = client.post(f"{REVIEWS}/{review['id']}/run", headers=editor)
    run = run_here(db.session.get(Run, started.get_json()["run_id"]), ReviewAssessment())
    assert run.status == "succeeded", run.item_errors
    assert run.results[f"discover:{document['id']}"]["pages"] == 2
    stored = db.session.get(ReviewDocument, document["id"])
    assert [page.splitlines() for page in stored.pages] == [CREDITS_PAGE, BUFFER_PAGE]
    answer = client.get(f"{REVIEWS}/{review['id']}/requirements/REQ-018", headers=editor)
    [snippet] = buffer_snippets(answer.get_json())
    assert (snippet["document"], snippet["page"], snippet["section"]) == (
        "Monitoring figures.xlsx", 2, "Buffer pool",
    )  # fmt: skip


def test_a_workbook_uploaded_through_the_page_is_read_and_its_cells_are_evidence(client_as):
    client = client_as("editor")
    review = assessed_on_page(client, ("figures.xlsx", workbook()))
    [sheet] = review.documents
    assert (sheet.kind, len(sheet.pages)) == ("xlsx", 2)
    buffer = bundled().requirement("REQ-018")
    [record] = [r for r in review.requirements if r.requirement_id == buffer.requirement_id]
    [passage] = [s for s in record.snippets if "B4: 146" in s["claim_summary"]]
    assert (passage["locator"]["page"], passage["locator"]["section"]) == (2, "Buffer pool")
    page = client.get(f"/registry/{review.id}/documents/{sheet.id}/pages/2")
    assert page.status_code == 200 and "B4: 146" in page.get_data(as_text=True)


def zip_of(parts: dict[str, bytes]) -> bytes:
    written = io.BytesIO()
    with zipfile.ZipFile(written, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, body in parts.items():
            archive.writestr(name, body)
    return written.getvalue()


def test_a_file_named_xlsx_that_is_not_a_workbook_is_refused_saying_so(client, editor, client_as):
    review = new_review(client, editor)
    for data in (b"Buffer Pool;146;tCO2e\n", zip_of({"word/document.xml": b"<w/>"})):
        answer = api_upload(client, editor, review["id"], "figures.xlsx", data)
        assert answer.status_code == 422
        error = answer.get_json()["error"]
        assert error["code"] == "not_xlsx" and error["message"].startswith(NOT_XLSX)
    assert db.session.query(ReviewDocument).count() == 0
    person = client_as("editor")
    assert create(person).status_code == 302
    response = page_upload(person, newest_review().id, ("renamed.xlsx", b"Just text.\n"))
    refused = " ".join(by_id(response, "upload-form").get_text().split())
    assert "renamed.xlsx" in refused and "is not an Excel workbook" in refused
    assert db.session.query(ReviewDocument).count() == 0


def test_a_workbook_unpacking_past_the_budget_is_refused_unread(client, editor, monkeypatch):
    def never(*_args, **_kwargs):
        raise AssertionError("the web process opened the workbook")

    monkeypatch.setattr(openpyxl, "load_workbook", never)
    # A zip bomb: 32 KB that unpack to more than the budget.
    bomb = zip_of(
        {"xl/workbook.xml": b"<workbook/>", "xl/sharedStrings.xml": bytes(MOST_UNPACKED_BYTES)}
    )
    assert len(bomb) < 50_000
    # A directory listing more parts than a workbook has (Python would list them all).
    crowded = zip_of(
        {"xl/workbook.xml": b"<workbook/>"}
        | {f"xl/worksheets/sheet{n}.xml": b"" for n in range(16_000)}
    )
    review = new_review(client, editor)
    for data, says in ((bomb, "unpacks to more than 32 MB"), (crowded, "lists more parts")):
        # Built in memory: the test client would spool a large body to a file it never closes.
        answer = client.post_multipart(
            f"{REVIEWS}/{review['id']}/documents",
            {"file": (io.BytesIO(data), "figures.xlsx")},
            headers=editor,
        )
        assert answer.status_code == 422
        error = answer.get_json()["error"]
        assert error["code"] == "xlsx_too_large" and says in error["message"]
        # The run's reader checks it again before opening it.
        with pytest.raises(UploadRefused, match=says):
            xlsx_pages(data)
    assert db.session.query(ReviewDocument).count() == 0
    check_xlsx(workbook())


def test_a_workbook_the_sandbox_cannot_read_keeps_the_reason_and_the_run_goes_on(make_user):
    damaged = zip_of({"xl/workbook.xml": b"<workbook", "[Content_Types].xml": b"<Types/>"})
    files = {"Damaged.xlsx": damaged, "Monitoring figures.csv": FIGURES.encode()}
    review, added, run = assessed(make_user("editor"), files)
    sheet = added["Damaged.xlsx"]
    db.session.refresh(sheet)
    assert sheet.pages is None
    reason = run.item_errors[f"discover:{sheet.id}"]
    assert reason.startswith("Damaged.xlsx: The workbook cannot be read ("), reason
    [record] = [r for r in review.requirements if r.requirement_id == "REQ-018"]
    assert any("B4: 146" in s["claim_summary"] for s in record.snippets)


def test_a_workbook_of_too_many_cells_is_refused_by_the_sandbox():
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("Points")
    for row in range(MOST_CELLS // 10 + 1):
        sheet.append(range(row * 10, row * 10 + 10))
    written = io.BytesIO()
    book.save(written)
    with pytest.raises(UploadRefused, match="more than 200,000 cells") as refused:
        bounded_pages(written.getvalue(), xlsx_pages, name="workbook", code="xlsx")
    assert refused.value.code == "too_many_cells"

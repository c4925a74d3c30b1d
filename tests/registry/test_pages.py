"""A project document as pages: numbers kept, a table of contents and a page without text
told apart, sections found; read from a real PDF through the library's sandbox."""

from tests.library.files import pdf_with_text
from webapp.library.sandbox import bounded_pdf_pages
from webapp.registry.pages import PageKind, is_contents, pages_of, sections_before, text_pages

CONTENTS = [
    "Table of Contents",
    "1 Project overview .................... 3",
    "2 Land tenure ......................... 5",
    "2.1 Ownership ......................... 6",
    "3 Crediting period .................... 9",
]
TENURE = [
    "2 Land tenure",
    "The land is owned by Nicholas Denman under a freehold title.",
    "2.1 Ownership",
    "The deed was registered on 06/02/2019 with the county registry.",
]


def test_a_pdf_keeps_its_page_numbers_and_kinds():
    data = pdf_with_text(["Grassland Project Plan 2023"], CONTENTS, [], TENURE)
    pages = pages_of(bounded_pdf_pages(data))
    assert [p.number for p in pages] == [1, 2, 3, 4]
    assert [p.kind for p in pages] == [
        PageKind.text,
        PageKind.contents,
        PageKind.no_text,
        PageKind.text,
    ]
    tenure = pages[3]
    assert [h.title for h in tenure.headings] == ["2 Land tenure", "2.1 Ownership"]
    assert tenure.section_at(tenure.text.index("deed")) == "2.1 Ownership"
    assert tenure.section_at(tenure.text.index("freehold")) == "2 Land tenure"
    assert pages[1].headings == ()  # a table of contents names sections it does not hold


def test_contents_pages_without_a_title_and_body_pages_with_numbers():
    assert is_contents("\n".join([*CONTENTS[1:], "4 Monitoring plan ....... 12"]))
    body = "\n".join(
        [
            "The project area covers 250 ha since 2019",
            "Leakage is estimated below 5 % of baseline yields.",
            "Soil samples were taken at 30 cm depth in spring.",
        ]
    )
    assert not is_contents(body)


def test_a_markdown_document_is_one_page_with_its_headings_unless_it_has_form_feeds():
    pages = text_pages(
        "# Monitoring report\n\n## Buffer pool\n\n20 % of each issuance.\f## Annex\nMaps."
    )
    assert [p.number for p in pages] == [1, 2]
    assert [h.title for h in pages[0].headings] == ["Monitoring report", "Buffer pool"]
    assert sections_before(pages) == {1: None, 2: "Buffer pool"}
    assert pages[1].section_at(0, before="Buffer pool") == "Annex"

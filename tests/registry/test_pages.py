"""A project document as pages: numbers kept, a table of contents and a page without text
told apart, sections found; read from a real PDF through the library's sandbox."""

import pytest

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


RESULTS = [
    "SOC stock change 1200",
    "Project emissions 150",
    "Leakage 50",
    "Net reductions 1000",
]


@pytest.mark.parametrize(
    "lines",
    [
        RESULTS,
        ["Results", *RESULTS, "Credits issued 1000", "Buffer credits 200"],
        [
            "Sampling points",
            "S1 North paddock 30",
            "S2 North paddock 30",
            "S3 South paddock 15",
            "S4 South paddock 30",
            "S5 River field 15",
            "S6 River field 30",
        ],
        [  # numbered like sections, but the last numbers do not go up
            "1 North paddock 30",
            "2 North paddock 30",
            "3 South paddock 15",
            "4 South paddock 30",
            "5 River field 15",
            "6 River field 30",
        ],
        [  # in order, but beyond the document's pages
            "1 Plot A 110",
            "2 Plot B 120",
            "3 Plot C 135",
            "4 Plot D 140",
            "5 Plot E 150",
        ],
    ],
)
def test_tables_of_figures_are_not_contents(lines):
    assert not is_contents("\n".join(lines), page_count=40)
    (page,) = pages_of(["\n".join(lines)])
    assert page.kind is PageKind.text


@pytest.mark.parametrize(
    "lines",
    [
        CONTENTS,  # titled, numbered, dot leaders
        ["Sommaire", "Présentation du projet 3", "Foncier 5", "Suivi 9"],  # titled only
        ["Grassland Project Plan 2023", *CONTENTS],  # a header's year does not count
        [*CONTENTS[1:], "4 Monitoring plan ....... 12", "Annex A – Maps ....... 20"],
        [  # untitled, dot leaders only (a second contents page)
            "Soil sampling design ........ 14",
            "Laboratory analysis ........ 16",
            "Baseline results ........ 18",
            "Leakage assessment ........ 21",
            "Buffer pool ........ 24",
        ],
    ],
)
def test_a_table_of_contents_with_or_without_its_title(lines):
    assert is_contents("\n".join(lines), page_count=40)
    pages = pages_of(["Cover", "\n".join(lines), *(["Body text."] * 38)])
    assert pages[1].kind is PageKind.contents


def test_untitled_contents_point_to_pages_of_the_document():
    untitled = "\n".join([*CONTENTS[1:], "4 Monitoring plan ....... 12"])
    assert is_contents(untitled, page_count=12)
    assert not is_contents(untitled, page_count=4)  # pages 5 to 12 do not exist


def test_a_footnote_at_a_pages_foot_is_no_section():
    page = (
        "4 Results\n"
        "SOC stocks rose by 840 tCO2e over the round.1\n"
        "1 IPCC (2006) Guidelines for National Greenhouse Gas Inventories, vol. 4.\n"
        "2 See Annex B for the sampling design."
    )
    (found,) = pages_of([page, "The buffer pool holds 146 credits."])[0].headings
    assert found.title == "4 Results"
    # The next page stands under the last heading, not under a footnote.
    assert sections_before(pages_of([page, "More results."]))[2] == "4 Results"
    # A heading at a page's foot, its text on the next page, stays a heading.
    foot = pages_of(["3 Monitoring plan\nSoil is sampled.\n4 Results"])[0]
    assert [h.title for h in foot.headings] == ["3 Monitoring plan", "4 Results"]

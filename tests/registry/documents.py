"""A soil-carbon project's documents as the registry tests (and the benchmark) use them: real
PDFs with a table of contents, a page without text, British spelling and a day-first date, an
owner spelled two ways across documents, another owner in a second deed, and a year next to
the word "project"."""

from __future__ import annotations

from tests.library.files import blank_pdf, pdf_with_text

OWNER = "Nicholas Denman"
SAME_OWNER = "Nick Denman"
OTHER_OWNER = "Margaret Holloway"
START_DATE = "06/02/2023"  # 6 February 2023 in a British document

CONTENTS = ["Contents", "1 Overview ..... 2", "2 Land tenure ..... 4", "3 Monitoring plan ..... 5"]
OVERVIEW = [
    "1 Overview",
    "Project plan for the Denman farm grassland soil carbon programme in Kent.",
    "The Project restores grassland soils; the organisation behind it favours grazing.",
    f"The project start date is {START_DATE}. The colour of the soil was recorded.",
    "The crediting period is 10 years from the project start date.",
]
TENURE = [
    "2 Land tenure",
    f"The farm is owned by {OWNER}, who holds the freehold title to 101.2 ha.",
    "The landowner approval is attached as a legal attestation of long-term control.",
]
MONITORING_PLAN = [
    "3 Monitoring plan",
    "Soil organic carbon is sampled every five years at stratified sampling points.",
    "The monitoring plan follows the centre's sampling and laboratory analysis programme.",
]

# Pages: 1 contents, 2 overview, 3 no text, 4 land tenure, 5 monitoring plan.
PLAN = pdf_with_text(CONTENTS, OVERVIEW, [], TENURE, MONITORING_PLAN)
PLAN_PAGES = {"contents": 1, "overview": 2, "blank": 3, "tenure": 4, "monitoring": 5}


def deed(owner: str) -> bytes:
    """A land-tenure deed naming its owner (no sign of how it writes dates)."""
    return pdf_with_text(
        [
            "Title deed",
            f"The land known as Denman farm is owned by {owner}.",
            "Tenure: freehold ownership, registered with the land registry.",
            "Area: 101.2 ha of grassland.",
        ]
    )


DEED_SAME_OWNER = deed(SAME_OWNER)
DEED_OTHER_OWNER = deed(OTHER_OWNER)

MONITORING = pdf_with_text(
    [
        "Monitoring report 2023",
        "In 2023 the project sampled soil organic carbon at 40 points.",
        "Project 2023 monitoring round: soil carbon stocks rose by 1200 tCO2e.",
        "Project emissions were 150 tCO2e and leakage 50 tCO2e; net 1000 tCO2e.",
    ]
)
# A file with no text layer at all (a scan).
SCAN = blank_pdf()
# A date that reads both ways in a document giving no sign of its style.
AMBIGUOUS_NOTE = (
    b"# Start of activities\n\nPractices changed on the farm from 06/02/2023 onwards.\n"
)


def long_document(title: str, lines: list[str], pages: int) -> bytes:
    """A PDF of many pages, as large project documents are: a contents page, then pages of
    the given lines under numbered headings."""
    contents = ["Contents", *(f"{n} Section {n} ..... {n + 1}" for n in range(1, 6))]
    body = [
        [f"{n} Section {n}", *(f"{line} (page {n + 1}, line {i})" for i, line in enumerate(lines))]
        for n in range(1, pages)
    ]
    return pdf_with_text([title, *contents], *body)

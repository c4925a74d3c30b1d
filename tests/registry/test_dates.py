"""Dates as documents write them: 06/02/2023 is read the document's way, or not at all."""

from datetime import date

import pytest

from webapp.registry.dates import DateStyle, date_style, read_date, years_after


@pytest.mark.parametrize(
    ("text", "style"),
    [
        ("Signed on 25/06/2023 by both parties.", DateStyle.day_first),
        ("Signed on 06/25/2023 by both parties.", DateStyle.month_first),
        ("The project started on 2 June 2023.", DateStyle.day_first),
        ("The project started on June 2, 2023.", DateStyle.month_first),
        ("The organisation's programme began 06/02/2023.", DateStyle.day_first),
        ("The organization's program began 06/02/2023.", DateStyle.month_first),
        ("Le projet a commencé le 2 juin 2023.", DateStyle.day_first),
        ("It began 06/02/2023.", None),
        ("Dated 25/06/2023 and 06/25/2023.", None),  # signs that disagree
    ],
)
def test_a_document_shows_how_it_writes_dates(text, style):
    assert date_style(text) is style


def test_an_ambiguous_date_is_read_in_the_documents_style_and_never_silently():
    assert read_date("06/02/2023", DateStyle.day_first).value == date(2023, 2, 6)
    assert read_date("06/02/2023", DateStyle.month_first).value == date(2023, 6, 2)
    unsure = read_date("06/02/2023")
    assert unsure.value is None and unsure.ambiguous
    assert "06 February 2023 or 02 June 2023" in unsure.problem
    assert read_date("25/06/2023").value == date(2023, 6, 25)  # only one reading
    assert read_date("06.06.2023").value == date(2023, 6, 6)  # both readings agree


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2023-06-02", date(2023, 6, 2)),
        ("2nd of June 2023", date(2023, 6, 2)),
        ("Sept. 1, 2022", date(2022, 9, 1)),
        ("1er janvier 2024", date(2024, 1, 1)),
    ],
)
def test_written_dates(text, expected):
    assert read_date(text).value == expected


@pytest.mark.parametrize("text", ["2023", "June 2023", "31/02/2023", "2023-13-01", "soon", ""])
def test_what_is_not_a_whole_date_is_a_problem(text):
    reading = read_date(text)
    assert reading.value is None and reading.problem


def test_years_after_a_leap_day_is_the_28th_of_february_in_a_common_year():
    assert years_after(date(2028, 2, 29), 2) == date(2030, 2, 28)
    assert years_after(date(2028, 2, 29), 4) == date(2032, 2, 29)
    assert years_after(date(2026, 11, 26), 50) == date(2076, 11, 26)

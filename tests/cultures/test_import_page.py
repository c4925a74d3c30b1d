"""The import page says which columns a file may have, in English, German and French, offers
them as templates, and counts the preview's rows by the levels the rows show."""

import csv
import io

import pytest

from tests.support.html import by_id
from webapp.cultures.fields import CULTURE_FIELDS, LABELS
from webapp.cultures.headers import HEADERS, LANGUAGES, field_of, header, headers
from webapp.cultures.importing import preview_csv


def upload(client, text):
    data = {
        "csrf_token": client.csrf_token("/cultures/import"),
        "file": (io.BytesIO(text.encode()), "cultures.csv"),
    }
    return client.post("/cultures/import", data=data, content_type="multipart/form-data")


def test_every_field_has_a_column_name_in_every_language_that_reads_back():
    assert set(HEADERS) == set(CULTURE_FIELDS)
    for language in LANGUAGES:
        assert [field_of(name) for name in headers(language)] == list(CULTURE_FIELDS)
    assert field_of(" SORTE ") == "variety" and field_of("Expected yield") == "expected_yield"
    assert field_of("colour") is None


def test_german_and_french_columns_import():
    text = "Nom;Sorte;Erwarteter Ertrag (kg);Erntemethode\nMöhre;Nantaise;4;pro m²\n"
    preview = preview_csv(text)
    assert preview.can_import, preview.error_rows
    assert preview.columns == ["name", "variety", "expected_yield", "harvest_method"]
    assert preview.rows[0].values["expected_yield"] == 4


def test_two_columns_for_one_field_are_refused():
    assert preview_csv("name,Nom\nKohl,Chou\n").problem == "More than one column gives Name."


def test_the_page_lists_each_fields_column_names_in_three_languages(client_as):
    page = client_as("editor").get("/cultures/import")
    table = by_id(page, "import-header-names")
    assert [th.get_text() for th in table.thead.find_all("th")] == ["Field", *LANGUAGES.values()]
    rows = [[td.get_text() for td in tr.find_all("td")] for tr in table.tbody.find_all("tr")]
    assert rows == [
        [LABELS[f], *(header(f, language) for language in LANGUAGES)] for f in CULTURE_FIELDS
    ]
    links = by_id(page, "import-templates").find_all("a")
    assert [a["href"] for a in links] == [
        f"/cultures/import/template.csv?lang={language}" for language in LANGUAGES
    ]


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_each_template_has_every_column_and_imports_back(client_as, language):
    editor = client_as("editor")
    template = editor.get(f"/cultures/import/template.csv?lang={language}")
    assert template.status_code == 200
    assert template.content_type == "text/csv; charset=utf-8"
    assert template.headers["Content-Disposition"] == (
        f"attachment; filename=furrow-cultures-template-{language}.csv"
    )
    text = template.get_data(as_text=True)
    assert next(csv.reader(io.StringIO(text))) == headers(language)
    assert preview_csv(text).problem == "The file has no rows."  # empty: nothing to import
    one_row = text + "Kohl" + "," * (len(CULTURE_FIELDS) - 1) + "\n"
    preview = preview_csv(one_row)
    assert preview.can_import and not preview.unknown_columns
    assert preview.columns == list(CULTURE_FIELDS)
    assert [row.values["name"] for row in preview.rows] == ["Kohl"]


def test_a_template_needs_an_editor_and_a_known_language(client, client_as):
    assert client.get("/cultures/import/template.csv").status_code in (302, 401)
    assert client_as("viewer").get("/cultures/import/template.csv").status_code == 403
    assert client_as("editor").get("/cultures/import/template.csv?lang=es").status_code == 404


MIXED = (
    "name,harvest_method,expected_yield,distance_within_row_cm,row_spacing_cm\n"
    "Rote Bete,per_sqm,28,5,30\n"  # implausible: above the library's cap for beetroot
    "Kohl,per_sqm,abc,,\n"  # its only problem: "abc" is no number
    "Zucchini,per_plant,4,60,100\n"
    "Möhre,,,,\n"
)


def test_the_preview_counts_rows_by_the_levels_they_show(client_as):
    response = upload(client_as("editor"), MIXED)
    assert response.status_code == 422
    counts = by_id(response, "level-counts").get_text(" ", strip=True)
    assert counts == "✖ 2 with errors ⚠ 0 with warnings ℹ 0 with notes ✓ 2 without issues"
    rows = by_id(response, "import-rows").tbody.find_all("tr")
    assert [tr["data-level"] for tr in rows] == ["error", "error", "none", "none"]
    beet, kohl = rows[0], rows[1]
    # The implausible yield at its rule's level, the unreadable one styled the same way.
    for row, says in ((beet, "at most 15 kg/m²"), (kohl, "abc")):
        issue = row.select(".issue")[0]
        assert issue["class"] == ["small", "issue", "issue-error"]
        assert issue.select_one(".severity").get_text() == "error"
        assert issue.select_one(".icon").get_text() == "✖"
        assert "Expected yield:" in issue.get_text() and says in issue.get_text()
    assert [i["data-code"] for i in beet.select(".issue")] == [
        "yield_above_crop_cap",
        "spacing_density_unusual",  # a warning too; the row's worst level counts
    ]
    assert len(kohl.select(".issue")) == 1
    assert not kohl.select("span.error")


def test_a_row_whose_only_problem_is_a_parse_error_is_an_error_row():
    preview = preview_csv(MIXED)
    kohl = preview.rows[1]
    assert not kohl.findings and kohl.level == "error"
    assert preview.error_rows == [kohl]
    assert preview.level_counts == {"error": 2, "warning": 0, "info": 0, "none": 2}

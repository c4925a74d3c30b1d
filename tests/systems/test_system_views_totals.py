"""Under the system page's grid: the system per hectare and year with what it lacks in words,
the chart of costs and output per step, and the grid as CSV."""

import copy
import csv
import io

from tests.systems.test_system_api import api_client, create, itinera
from tests.systems.test_totals import value, wheat
from webapp.systems.demo import DEMO_DOCUMENT
from webapp.systems.grid import columns
from webapp.systems.summary import csv_header, step_chart, yearly_rows
from webapp.systems.totals import system_totals


def rapeseed():
    """A step with costs but neither yield nor price."""
    return {
        "id": "s2",
        "name": "Colza d'hiver",
        "startDate": "2026-08-20T00:00:00.000Z",
        "endDate": "2027-07-10T00:00:00.000Z",
        "interventions": [
            {
                "id": "colza-semis",
                "name": "Semis colza",
                "day": "5",
                "values": [value("frequence", 1), value("semences", 60)],
            }
        ],
    }


def document(*steps):
    return {"title": "Rotation", "steps": list(steps)}


def stored(*steps):
    """A document the import takes: every value a number."""
    doc = copy.deepcopy(document(*steps))
    for step in doc["steps"]:
        for work in step["interventions"]:
            work["values"] = [v for v in work["values"] if isinstance(v["value"], int | float)]
    return doc


def rows_by_key(doc):
    return {row.key: row for row in yearly_rows(doc, system_totals(doc))}


def test_a_complete_margin_is_shown_and_a_missing_price_is_said_in_words():
    doc = document(wheat(), rapeseed())
    rows = rows_by_key(doc)
    margin = rows["margeBrute"]
    assert margin.label == "Gross margin" and margin.unit == "€/ha/year"
    assert not margin.complete
    assert "needs the yield and price" in margin.missing and "Colza d'hiver" in margin.missing
    assert rows["totalProduits"].missing == "needs the yield and price of Colza d'hiver"
    # The wheat's charges lack fertiliser and irrigation; the rapeseed's more.
    assert "the fertiliser and irrigation of Blé tendre d'hiver" in rows["totalCharges"].missing
    assert rows["gnr"].missing == (
        "needs values for 2 of the 3 interventions of Blé tendre d'hiver; "
        "needs values for every intervention of Colza d'hiver"
    )
    assert "rendement" not in rows and "prixVente" not in rows


def test_a_total_shown_as_complete_counts_every_step():
    step = wheat()
    for work in step["interventions"]:
        work["values"] = [value("frequence", 1), value("gnr", 10)]
    doc = document(step)
    gnr = rows_by_key(doc)["gnr"]
    assert gnr.complete and gnr.missing == ""
    assert gnr.value == system_totals(doc).values["gnr"]


def test_the_demo_system_says_what_every_total_lacks():
    rows = rows_by_key(DEMO_DOCUMENT)
    # The demo states each step's yield and price (a cover crop sells nothing), nothing else.
    assert [key for key, row in rows.items() if row.complete] == ["totalProduits"]
    assert rows["margeBrute"].missing == (
        "needs the crop protection, seeds, fertiliser, machinery, fuel cost and irrigation of "
        "every step"
    )
    assert rows["ges"].missing == "needs values for every intervention of every step"


def test_the_chart_has_a_bar_per_series_and_says_when_a_step_has_none():
    empty = {**rapeseed(), "id": "s3", "name": "Moutarde", "interventions": []}
    doc = document(wheat(), rapeseed(), empty)
    chart = step_chart(doc, system_totals(doc))
    wheat_row, rapeseed_row, mustard = chart.rows
    assert [b.kind for b in wheat_row.bars] == ["products", "charges"]
    products, charges = wheat_row.bars
    assert products.value == 1600 and products.width > charges.width > 0
    assert [b.kind for b in rapeseed_row.bars] == ["charges"] and rapeseed_row.margin is None
    assert mustard.bars == () and chart.has_data
    nothing = document(empty)
    assert not step_chart(nothing, system_totals(nothing)).has_data


def test_the_page_shows_the_yearly_table_the_chart_and_the_csv_link(client_as):
    editor = api_client(client_as, "editor")
    answer = create(editor, document=stored(wheat(), rapeseed()))
    system_id = answer.get_json()["id"]
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    assert "Per hectare and year" in page and "€/ha/year" in page
    assert "Gross margin: needs the fertiliser and irrigation of Blé tendre d&#39;hiver" in page
    assert "needs the yield and price of Colza d&#39;hiver" in page
    assert 'class="bar products"' in page and 'class="bar charges"' in page
    assert "<title>Blé tendre d&#39;hiver: Total output 1600 €/ha</title>" in page
    assert f'href="/systems/{system_id}.csv"' in page
    assert "style=" not in page.split('id="yearly-totals"')[1]


def test_the_csv_has_a_row_per_step_and_intervention_with_labelled_columns(client_as):
    editor = api_client(client_as, "editor")
    doc = stored(wheat(), rapeseed())
    doc["steps"][1]["interventions"][0]["name"] = '=HYPERLINK("http://x")'
    system_id = create(editor, document=doc).get_json()["id"]
    answer = editor.get(f"/systems/{system_id}.csv")
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    assert ".csv" in answer.headers["Content-Disposition"]
    table = list(csv.reader(io.StringIO(answer.get_data(as_text=True))))
    header = table[0]
    assert header[:3] == ["Step", "Intervention", "Date"]
    assert "Fuel (L/ha)" in header and "Gross margin (€/ha)" not in header
    assert len(table) == 1 + 2 + 4
    labour = next(r for r in table if r[1] == "Labour")
    assert labour[0] == "Blé tendre d'hiver" and float(labour[header.index("Fuel (L/ha)")]) == 21
    assert labour[header.index("Seeds (€/ha)")] == ""
    wheat_row = table[1]
    assert wheat_row[1] == "" and float(wheat_row[header.index("Yield (t/ha)")]) == 8
    assert any(r[1] == '\'=HYPERLINK("http://x")' for r in table)


def text_values_system(client_as):
    editor = api_client(client_as, "editor")
    answer = create(editor, document=itinera("itinera-text-values.json"))
    assert answer.status_code == 201, answer.get_json()
    return editor, answer.get_json()


def test_text_that_reads_as_a_number_counts_and_other_text_counts_nowhere(client_as):
    editor, created = text_values_system(client_as)
    totals = editor.get(f"/api/v1/systems/{created['id']}/totals").get_json()
    wheat_totals = totals["steps"][0]
    herbicide = wheat_totals["interventions"]["int-herbicide"]["values"]
    assert {"value": 0.15, "unit": "IFT"}.items() <= herbicide["ift"].items()
    assert {"value": 35.5, "unit": "€/ha"}.items() <= herbicide["coutsPhytos"].items()
    assert "gnr" not in herbicide  # "environ 2" is no number
    assert {"value": 18, "unit": "L/ha"}.items() <= wheat_totals["values"]["gnr"].items()
    assert wheat_totals["missing"]["gnr"] == ["int-herbicide"]
    assert "mecanisation" not in wheat_totals["values"]  # "beaucoup" only
    # 72 q/ha at 210 €/t: the step's yield in its own unit, converted for the output.
    assert {"value": 72, "unit": "q/ha"}.items() <= wheat_totals["values"]["rendement"].items()
    assert {"value": 1512, "unit": "€/ha"}.items() <= wheat_totals["values"][
        "totalProduits"
    ].items()
    assert {"value": 3.4, "unit": "t/ha"}.items() <= totals["steps"][1]["values"][
        "rendement"
    ].items()


def test_the_csv_gives_each_yield_its_steps_unit_and_text_as_written(client_as):
    editor, created = text_values_system(client_as)
    answer = editor.get(f"/systems/{created['id']}.csv")
    table = list(csv.reader(io.StringIO(answer.get_data(as_text=True))))
    header = table[0]
    assert "Yield (t/ha)" not in header
    at = header.index("Yield")
    assert header[at + 1] == "Yield unit"
    wheat_row, rapeseed_row = (r for r in table if r[1] == "")
    assert (float(wheat_row[at]), wheat_row[at + 1]) == (72, "q/ha")
    assert (float(rapeseed_row[at]), rapeseed_row[at + 1]) == (3.4, "t/ha")
    herbicide = next(r for r in table if r[1] == "Désherbage")
    assert float(herbicide[header.index("Treatment frequency index (IFT)")]) == 0.15
    assert herbicide[header.index("Fuel (L/ha)")] == "environ 2"


def test_one_yield_unit_is_said_in_the_heading():
    one = copy.deepcopy(itinera("itinera-text-values.json"))
    one["steps"][1]["assumptions"] = "- **Unité rendement**: q/ha"
    assert "Yield (q/ha)" in csv_header(columns(one), one)
    assert "Yield unit" not in csv_header(columns(one), one)


def test_the_api_says_at_system_level_what_the_page_says_each_total_misses(client_as):
    editor = api_client(client_as, "editor")
    doc = stored(wheat(), rapeseed())
    system_id = create(editor, document=doc).get_json()["id"]
    answer = editor.get(f"/api/v1/systems/{system_id}/totals").get_json()
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    rows = rows_by_key(doc)
    # One reading serves both: every total that is not complete, and only those, in words as
    # the page's yearly table says them.
    assert set(answer["missing"]) == {key for key, row in rows.items() if not row.complete}
    for key, row in rows.items():
        if row.value is not None:
            assert answer["values"][key]["partial"] == row.partial
    gnr = answer["missing"]["gnr"]
    assert gnr["says"] == f"Fuel: {rows['gnr'].missing}"
    assert gnr["partial"] and gnr["value"] == answer["values"]["gnr"]["value"]
    assert gnr["says"].replace("'", "&#39;") in page
    wheat_gap, rapeseed_gap = gnr["steps"]
    assert (wheat_gap["step"], wheat_gap["needs"]) == (
        "Blé tendre d'hiver",
        "values for 2 of the 3 interventions",
    )
    assert [i["name"] for i in wheat_gap["interventions"]] == ["Désherbage", "Semis"]
    assert rapeseed_gap["interventions"] == [{"id": "colza-semis", "name": "Semis colza"}]
    # Derived totals name the indicators they lack.
    products = answer["missing"]["totalProduits"]
    assert products["says"] == "Total output: needs the yield and price of Colza d'hiver"
    assert [i["key"] for i in products["steps"][0]["indicators"]] == ["rendement", "prixVente"]
    charges = answer["missing"]["totalCharges"]["steps"][0]
    assert charges["step"] == "Blé tendre d'hiver"
    assert [i["label"] for i in charges["indicators"]] == ["Fertiliser", "Irrigation"]
    # A total no step has: missing, not partial, without a value.
    assert "engrais" not in answer["values"]
    assert answer["missing"]["engrais"]["partial"] is False
    assert answer["missing"]["engrais"]["value"] is None


def test_a_complete_total_is_not_partial_and_misses_nothing(client_as):
    editor = api_client(client_as, "editor")
    step = wheat()
    for work in step["interventions"]:
        work["values"] = [value("frequence", 1), value("gnr", 10)]
    system_id = create(editor, document=stored(step)).get_json()["id"]
    answer = editor.get(f"/api/v1/systems/{system_id}/totals").get_json()
    assert answer["values"]["gnr"]["partial"] is False
    assert "gnr" not in answer["missing"]
    # The steps keep their own reading: per total, the interventions without a value.
    assert answer["steps"][0]["missing"]["ift"] == ["labour", "herbi", "semis"]

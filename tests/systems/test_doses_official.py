"""The ministry's reference-dose table as its IFT service exports it (tab-separated, decimal
commas, UTF-8 or saved again as Windows-1252), imported in one command; the share of treatments
a table gives a dose (counted without Flask, and by `furrow dose-coverage`); and what the IFT
says to do about a product without one."""

from pathlib import Path

import pytest

from webapp.extensions import db
from webapp.problems import Invalid
from webapp.systems.assumptions import resolve
from webapp.systems.calculators import Context
from webapp.systems.calculators.ift import (
    ReferenceDoses,
    bundled_reference_doses,
    calculate,
    dose_coverage,
    read_reference_doses_csv,
)
from webapp.systems.demo import DEMO_DOCUMENT, load_demo_system
from webapp.systems.doses import current_import, import_doses, read_dose_file
from webapp.uploads import UploadRefused

# Layout only: the columns of the ministry's export, its doses those of the MAA sample (see
# tests/systems/data/README.md).
LAYOUT = Path(__file__).parent / "data" / "ift-api-doses-layout.csv"
# The example: a wheat fungicide at half its 1.5 L/ha reference dose, by AMM number.
WHEAT_FUNGICIDE = (
    "- **Produit**: 2190686\n- **Dose**: 0,75 L/ha\n- **Segment**: fungicide\n"
    "- **Surface traitée**: 100 %"
)


def wheat_fungicide_ift(doses: ReferenceDoses):
    step = "- **Culture**: Blé tendre d'hiver"
    return calculate(Context(resolve(step=step, intervention=WHEAT_FUNGICIDE)), doses)


def test_the_ministrys_export_reads_with_its_names_tabs_and_decimal_commas():
    doses = read_reference_doses_csv(LAYOUT.read_text(encoding="utf-8"), source="MAA")
    assert len(doses) == 2 and doses.without_dose == 1  # the row without Dose_ref is skipped
    row, basis = doses.lookup("8900564", "winter soft wheat", "autumn aphids")
    assert (row.figure.low, row.figure.unit, basis) == (0.2, "L/ha", "target")
    # "Blé tendre" is soft wheat: a winter soft wheat falls back to it, as in the sample.
    assert doses.lookup("2190686", "winter soft wheat", None)[0].figure.text == "1.5 L/ha"


def test_a_blank_dose_is_an_error_outside_the_ministrys_layout():
    with pytest.raises(Invalid, match="line 2: dose: Give a number"):
        read_reference_doses_csv("product;dose;unit\nX;;L/ha\n", source="test")


def test_the_wheat_fungicide_counts_half_a_dose_once_the_table_holds_it():
    before = wheat_fungicide_ift(bundled_reference_doses())
    assert before.value == 1  # unknown to the sample: IFT 1, and what to do about it
    [warning] = [c for c in before.caveats if c.code == "ift_no_reference_dose"]
    assert "furrow import-doses FILE" in warning.message
    table = read_reference_doses_csv(LAYOUT.read_text(encoding="utf-8"), source="MAA")
    after = wheat_fungicide_ift(table)
    assert after.value == 0.5  # 0.75 L/ha ÷ 1.5 L/ha
    assert after.parts["fungicide"] == 0.5
    missing = read_reference_doses_csv("product;dose;unit\nX;1;L/ha\n", source="test")
    [imported] = [c for c in wheat_fungicide_ift(missing).caveats if "AMM" in c.message]
    assert "The imported table has no dose for it" in imported.message


def work(key, name, description="", assumptions="", values=()):
    return {
        "id": key,
        "name": name,
        "description": description,
        "assumptions": assumptions,
        "values": list(values),
    }


ROTATION = {
    "steps": [
        {
            "id": "ble",
            "name": "Blé tendre d'hiver",
            "interventions": [
                work("fongicide", "Fongicide", "Fongicide Revystar XL 1 L/ha sur 100 %"),
                work("inconnu", "Herbicide", assumptions="- **Produit**: Inconnu 2000\n"),
                work(
                    "mélange",
                    "Mélange",
                    assumptions="- **Produit**: Mavrik Flo + Inconnu 2000\n"
                    "- **Cible**: autumn aphids\n",
                ),
                work(
                    "déclarée",
                    "Traitement",
                    assumptions="- **Produit**: Autre\n- **Dose de référence**: 2 L/ha\n",
                ),
                work("labour", "Labour", "Charrue 5 corps"),
                work(
                    "marqué",
                    "Traitement de semences",
                    assumptions="- **Produit**: Inconnu 2000\n",
                    values=[{"key": "ift", "value": 0, "reviewed": "n/a"}],
                ),
            ],
        }
    ]
}


def test_coverage_counts_the_treatments_and_names_the_products_without_a_dose():
    coverage = dose_coverage([ROTATION], bundled_reference_doses())
    # Revystar XL and the stated reference dose count; the two with Inconnu 2000 do not.
    assert (coverage.covered, coverage.treatments) == (2, 4)
    assert coverage.summary == "2 of 4 treatments have a reference dose (50 %)"
    assert coverage.missing == {"Inconnu 2000 (Blé tendre d'hiver)": 2}
    both = coverage + dose_coverage([DEMO_DOCUMENT], bundled_reference_doses())
    assert both.summary == "7 of 9 treatments have a reference dose (78 %)"
    assert dose_coverage([{"steps": []}], bundled_reference_doses()).summary == (
        "no treatment names a product"
    )


def test_a_windows_1252_file_reads_and_a_binary_one_is_refused():
    text = LAYOUT.read_text(encoding="utf-8")
    assert read_dose_file(text.encode("cp1252")) == text
    with pytest.raises(UploadRefused, match="binary"):
        read_dose_file(b"\x00\x01")


def test_import_then_coverage_on_the_command_line(app, tmp_path):
    runner = app.test_cli_runner()
    load_demo_system()
    before = runner.invoke(args=["dose-coverage"])
    assert before.exit_code == 0, before.output
    assert "table: the bundled sample of 14 doses" in before.output
    assert "5 of 5 treatments have a reference dose (100 %)" in before.output
    saved = tmp_path / "doses 2024.csv"
    saved.write_bytes(LAYOUT.read_text(encoding="utf-8").encode("cp1252"))
    done = runner.invoke(args=["import-doses", str(saved)])
    assert done.exit_code == 0, done.output
    assert "imported 2 reference dose(s) from “doses 2024.csv”; 1 row(s)" in done.output
    assert current_import().rows == 2
    after = runner.invoke(args=["dose-coverage", "1"])
    assert after.exit_code == 0, after.output
    # The demo names its products; this table knows them only by AMM number.
    assert "0 of 5 treatments have a reference dose (0 %)" in after.output
    assert "  no reference dose: Revystar XL (Blé tendre d'hiver) (1 treatment(s))" in after.output


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["dose-coverage", "9"], "furrow: no system #9"),
        (["dose-coverage", "--file", "none.json"], "furrow: cannot read none.json: "),
        (["dose-coverage", "1", "--file", "x.json"], "furrow: give system numbers or --file"),
    ],
)
def test_dose_coverage_refuses_in_one_line(app, args, line):
    refused = app.test_cli_runner().invoke(args=args)
    assert refused.exit_code == 2
    [said] = refused.output.strip().splitlines()[-1:]
    assert said.startswith(line)


def test_dose_coverage_of_an_itinera_file(app, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    refused = app.test_cli_runner().invoke(args=["dose-coverage", "--file", str(bad)])
    assert refused.exit_code == 2 and f"furrow: {bad}: The file is not JSON" in refused.output
    good = Path(__file__).parent / "data" / "example-system.json"
    done = app.test_cli_runner().invoke(args=["dose-coverage", "--file", str(good)])
    assert done.exit_code == 0 and "example-system.json: no treatment names a product" in (
        done.output
    )


def test_the_dose_page_shows_the_coverage_of_the_farm_systems(client_as):
    viewer = client_as("viewer")
    assert "No treatment in the farm systems names a product" in viewer.get(
        "/systems/doses"
    ).get_data(as_text=True)
    load_demo_system()
    page = viewer.get("/systems/doses").get_data(as_text=True)
    assert "5 of 5 treatments have a reference dose (100 %) in the farm systems" in page
    import_doses(LAYOUT.read_text(encoding="utf-8"), "doses.csv", None)
    db.session.commit()
    page = viewer.get("/systems/doses").get_data(as_text=True)
    assert "0 of 5 treatments have a reference dose (0 %)" in page
    assert "<td>Mavrik Flo (Blé tendre d&#39;hiver)</td>" in page

"""The ministry's reference-dose table as its IFT service exports it (tab-separated, decimal
commas, UTF-8 or saved again as Windows-1252), imported in one command; the share of treatments
a table gives a dose (counted without Flask, and by `furrow dose-coverage`); and what the IFT
says to do about a product without one."""

import io
from pathlib import Path

import pytest
from sqlalchemy import select

from webapp.extensions import db
from webapp.problems import Invalid
from webapp.systems.assumptions import resolve
from webapp.systems.calculators import Context
from webapp.systems.calculators.ift import (
    ReferenceDoses,
    bundled_reference_doses,
    calculate,
    dose_coverage,
    read_product_names_csv,
    read_reference_doses_csv,
)
from webapp.systems.demo import DEMO_DOCUMENT, load_demo_system
from webapp.systems.doses import current_import, import_doses, read_dose_file
from webapp.systems.models import System
from webapp.uploads import UploadRefused

# Layout only: the columns of the ministry's export, its doses those of the MAA sample (see
# tests/systems/data/README.md).
LAYOUT = Path(__file__).parent / "data" / "ift-api-doses-layout.csv"
NAMES = Path(__file__).parent / "data" / "ift-api-products-layout.csv"
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


def test_the_ministrys_product_list_names_the_tables_amm_numbers():
    names = read_product_names_csv(NAMES.read_text(encoding="utf-8"))
    assert names == {"2190686": ["REVYSTAR XL"], "8900564": ["MAVRIK FLO"]}
    doses = read_reference_doses_csv(LAYOUT.read_text(encoding="utf-8"), "MAA", names)
    row, basis = doses.lookup("Mavrik Flo", "winter soft wheat", "autumn aphids")
    assert (row.product, row.figure.low, basis) == ("MAVRIK FLO", 0.2, "target")
    assert doses.lookup("8900564", "winter soft wheat", None)[0] is row  # still by number
    # The newest campaign's name first; a line without a name or number is refused.
    assert read_product_names_csv("AMM;Nom_produit;ID_campagne\n1;OLD;2023\n1;NEW;2024\n") == {
        "1": ["NEW", "OLD"]
    }
    with pytest.raises(Invalid) as raised:
        read_product_names_csv("AMM;Nom_produit\n1;\n;B\n")
    assert [p.message for p in raised.value.problems] == [
        "product names, line 2: name is empty",
        "product names, line 3: AMM is empty",
    ]
    with pytest.raises(Invalid, match="lacks the columns: AMM"):
        read_product_names_csv("Nom_produit\nA\n")


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
    system_id = str(db.session.scalar(select(System.id)))
    numbers_only = runner.invoke(args=["dose-coverage", system_id])
    assert numbers_only.exit_code == 0, numbers_only.output
    # The demo names its products; this table knows them only by AMM number.
    assert "0 of 5 treatments have a reference dose (0 %)" in numbers_only.output
    assert "  no reference dose: Revystar XL (Blé tendre d'hiver) (1 treatment(s))" in (
        numbers_only.output
    )
    named = runner.invoke(args=["import-doses", str(saved), "--names", str(NAMES)])
    assert named.exit_code == 0, named.output
    assert "named by “ift-api-products-layout.csv”" in named.output
    after = runner.invoke(args=["dose-coverage"])
    assert f"#{system_id} Colza – blé – orge de printemps (Beauce): 2 of 5 treatments" in (
        after.output
    )
    assert "Revystar XL" not in after.output and "Mavrik Flo" not in after.output
    assert "  no reference dose: Altiplano DAM Tec (Colza d'hiver) (1 treatment(s))" in (
        after.output
    )


def test_import_doses_refuses_a_bad_product_list_in_one_line(app, tmp_path):
    bad = tmp_path / "names.csv"
    bad.write_text("AMM;Nom_produit\n1;\n", encoding="utf-8")
    refused = app.test_cli_runner().invoke(args=["import-doses", str(LAYOUT), "--names", str(bad)])
    assert refused.exit_code == 1
    [line] = refused.output.strip().splitlines()
    assert line == f"furrow: {LAYOUT}: nothing imported: product names, line 2: name is empty"
    missing = app.test_cli_runner().invoke(
        args=["import-doses", str(LAYOUT), "--names", str(tmp_path / "none.csv")]
    )
    assert missing.exit_code == 2 and "cannot read " + str(tmp_path / "none.csv") in (
        missing.output
    )
    assert current_import() is None


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
    assert "5 of 5 treatments have a reference dose (100\u00a0%) in the farm systems" in page
    import_doses(LAYOUT.read_text(encoding="utf-8"), "doses.csv", None)
    db.session.commit()
    page = viewer.get("/systems/doses").get_data(as_text=True)
    assert "0 of 5 treatments have a reference dose (0\u00a0%)" in page
    assert "<td>Mavrik Flo (Blé tendre d&#39;hiver)</td>" in page


def test_an_editor_imports_the_table_with_its_product_list_on_the_page(client_as):
    editor = client_as("editor")
    page = editor.get("/systems/doses").get_data(as_text=True)
    assert 'name="names"' in page and "Product names CSV (optional)" in page
    data = {
        "file": (io.BytesIO(LAYOUT.read_bytes()), "doses.csv"),
        "names": (io.BytesIO(NAMES.read_bytes()), "produits.csv"),
        "check": "1",
    }
    checked = editor.submit(
        "/systems/doses", data, page="/systems/doses", content_type="multipart/form-data"
    ).get_data(as_text=True)
    assert "reads without a problem: 2 dose(s), and 1 row(s) the ministry gives no dose" in (
        checked
    )
    assert "<td>MAVRIK FLO</td>" in checked and current_import() is None
    data = {
        "file": (io.BytesIO(LAYOUT.read_bytes()), "doses.csv"),
        "names": (io.BytesIO(b"AMM;Nom_produit\n1;\n"), "produits.csv"),
        "save": "1",
    }
    refused = editor.submit(
        "/systems/doses", data, page="/systems/doses", content_type="multipart/form-data"
    )
    assert refused.status_code == 422
    assert "product names, line 2: name is empty" in refused.get_data(as_text=True)
    data["names"] = (io.BytesIO(NAMES.read_bytes()), "produits.csv")
    data["file"] = (io.BytesIO(LAYOUT.read_bytes()), "doses.csv")
    done = editor.submit(
        "/systems/doses", data, page="/systems/doses", content_type="multipart/form-data"
    )
    assert done.status_code == 302
    page = editor.get(done.headers["Location"]).get_data(as_text=True)
    assert "Imported 2 reference dose(s) from “doses.csv”, named by “produits.csv”" in page
    assert "its products named by “produits.csv”" in page

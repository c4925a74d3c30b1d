"""Reference doses: a table in the ministry's shape read from CSV, imported on its page or with
`import-doses`, then used by the IFT calculator before the bundled sample, named as its source."""

import io
from pathlib import Path

import pytest
from sqlalchemy import select

from webapp.extensions import db
from webapp.problems import Invalid
from webapp.systems.assumptions import resolve
from webapp.systems.calculators import Context, calculate
from webapp.systems.calculators.ift import read_reference_doses_csv, reference_doses
from webapp.systems.doses import ReferenceDoseImport, current_import

MAA = Path(__file__).parent / "data" / "maa-reference-doses.csv"
WHEAT_APHIDS = (
    "- **Produit**: Mavrik Flo\n- **Dose**: 0,1 L/ha\n- **Cible**: autumn aphids\n"
    "- **Segment**: insecticide"
)


def wheat_ift():
    return calculate(
        "ift", Context(resolve(step="- **Culture**: Blé tendre d'hiver", intervention=WHEAT_APHIDS))
    )


def test_a_table_in_the_ministrys_shape_reads_with_its_units_and_codes():
    doses = read_reference_doses_csv(MAA.read_text(encoding="utf-8"), source="MAA sample")
    assert len(doses) == 6
    row, basis = doses.lookup("Mavrik Flo", "winter soft wheat", "autumn aphids")
    assert (row.figure.low, row.figure.unit, basis) == (0.2, "L/ha", "target")
    assert row.figure.source == "MAA sample" and row.code_amm == "8900564"
    assert doses.lookup("Venzar", "sugar beet", None)[0].figure.text == "0.156 kg/ha"
    # By its authorisation number too; Roundup's dose is for no crop.
    assert doses.lookup("8900564", "winter soft wheat", None)[0].product == "MAVRIK FLO"
    assert doses.lookup("Roundup Extra 360", "maize", None)[1] == "no crop"


def test_the_newest_campaign_wins_and_a_blank_line_is_skipped():
    doses = read_reference_doses_csv(
        "nom_produit;culture_maa;campagne;dose_ref_maa;unit_dose_ref_maa\n"
        "X;maize;2023;2;L_HA\n\nX;maize;2025;1,5;L_HA\nX;maize;2024;3;L_HA\n",
        source="test",
    )
    assert len(doses) == 1 and doses.lookup("X", "maize", None)[0].figure.low == 1.5


def test_a_bad_table_names_its_lines_and_its_missing_columns():
    with pytest.raises(Invalid) as raised:
        read_reference_doses_csv(
            "code_amm;dose_ref_maa;unit_dose_ref_maa\n1;0,2;L_HA\n;1;L_HA\n2;-1;L_HA\n3;1;\n",
            source="test",
        )
    assert [p.message for p in raised.value.problems] == [
        "line 3: product is empty",
        "line 4: dose must be above 0",
        "line 5: unit is empty",
    ]
    with pytest.raises(Invalid, match="lacks the columns: product, dose"):
        read_reference_doses_csv("culture_maa;unit\nmaize;L/ha\n", source="test")


def test_without_an_import_the_calculator_reads_the_bundled_sample(app):
    assert current_import() is None
    assert len(reference_doses()) == 14
    assert wheat_ift().sources[0].title.startswith("Agrosyst test data")


def upload(client, content: bytes, save: bool, name: str = "doses.csv"):
    data = {"file": (io.BytesIO(content), name), ("save" if save else "check"): "1"}
    return client.submit(
        "/systems/doses", data, page="/systems/doses", content_type="multipart/form-data"
    )


def test_an_editor_checks_then_imports_a_table_the_calculator_then_names(client_as):
    editor = client_as("editor")
    page = editor.get("/systems/doses").get_data(as_text=True)
    assert "bundled sample of 14 doses" in page and 'name="file"' in page
    checked = upload(editor, MAA.read_bytes(), save=False, name="maa.csv")
    text = checked.get_data(as_text=True)
    assert checked.status_code == 200 and "reads without a problem: 6 dose(s)" in text
    assert "MAVRIK FLO" in text and current_import() is None  # nothing stored
    imported = upload(editor, MAA.read_bytes(), save=True, name="maa.csv")
    assert imported.status_code == 302
    page = editor.get(imported.headers["Location"]).get_data(as_text=True)
    assert "Imported 6 reference dose(s) from “maa.csv”" in page
    assert "reads the imported table “maa.csv”" in page
    result = wheat_ift()
    assert result.value == 0.5  # 0.1 ÷ 0.2 L/ha
    assert result.sources[0].title.startswith("imported table “maa.csv” (#")
    assert "imported table “maa.csv”" in " ".join(result.calculation_steps)


def test_a_bad_table_is_refused_with_its_lines_and_nothing_is_stored(client_as):
    editor = client_as("editor")
    bad = b"product;dose;unit;source\nA;1;L/ha;s\nB;abc;L/ha;s\nC;0;L/ha;s\n"
    answer = upload(editor, bad, save=True)
    text = answer.get_data(as_text=True)
    assert answer.status_code == 422 and "Nothing was imported" in text
    assert "line 3:" in text and "line 4: dose must be above 0" in text
    for content, words in [
        (b"\xff\xfe\x00a", "not UTF-8"),
        (b"product;unit\n", "lacks the columns"),
    ]:
        refused = upload(editor, content, save=True)
        assert refused.status_code == 422 and words in refused.get_data(as_text=True)
    empty = upload(editor, b"product;dose;unit;source\n", save=True)
    assert empty.status_code == 422 and "no dose rows" in empty.get_data(as_text=True)
    wrong = upload(editor, b"{}", save=True, name="doses.json")
    assert wrong.status_code == 422 and "Only .csv files." in wrong.get_data(as_text=True)
    assert current_import() is None


def test_a_viewer_sees_the_table_but_cannot_import(client_as):
    viewer = client_as("viewer")
    page = viewer.get("/systems/doses").get_data(as_text=True)
    assert "The table in force" in page and 'name="file"' not in page
    assert upload(viewer, MAA.read_bytes(), save=True).status_code == 403
    assert current_import() is None


def test_the_import_doses_command(app, tmp_path):
    runner = app.test_cli_runner()
    done = runner.invoke(args=["import-doses", str(MAA)])
    assert done.exit_code == 0, done.output
    assert "imported 6 reference dose(s) from “maa-reference-doses.csv”" in done.output
    assert current_import().filename == "maa-reference-doses.csv"
    bad = tmp_path / "bad.csv"
    bad.write_text("product;dose;unit;source\nA;x;L/ha;s\nB;0;L/ha;s\n", encoding="utf-8")
    refused = runner.invoke(args=["import-doses", str(bad)])
    assert refused.exit_code == 1
    [line] = refused.output.strip().splitlines()
    assert line.startswith(f"furrow: {bad}: nothing imported: line 2: ")
    assert line.endswith("(and 1 more bad lines)")
    missing = runner.invoke(args=["import-doses", str(tmp_path / "none.csv")])
    assert missing.exit_code == 2 and "cannot read" in missing.output
    assert len(db.session.scalars(select(ReferenceDoseImport)).all()) == 1

"""`furrow fertilize recommend` and `furrow crop export` as a person runs them (in-process)."""

import json
import os

import pytest
from flask.cli import ScriptInfo

from tests.fertilizer.profiles import LETTUCE_FILE, PLAN_KEYS, TOMATO_FILE
from tests.support.app import Ran, furrow, run_cli
from webapp.cultures.catalog import create_culture
from webapp.extensions import db


def no_app():
    raise AssertionError("`furrow fertilize` loaded the app: it needs no database or Redis")


def recommend(*args: str, env: dict | None = None) -> Ran:
    """The command without a database or Redis: it needs neither, so it may not load the app."""
    unset = {
        name: None
        for name in os.environ
        if name.startswith(("FURROW_", "OPENAI_")) or name in ("DATABASE_URL", "REDIS_URL")
    }
    env = {**unset, "FURROW_INSTANCE_PATH": "/nonexistent/furrow", **(env or {})}
    return run_cli(["fertilize", "recommend", *args], ScriptInfo(create_app=no_app), **env)


def test_the_tomato_fixture_prints_a_table_with_oxides_per_application_and_sources():
    done = recommend("--crop-file", str(TOMATO_FILE), "--region", "Florida", "--soil-p", "low")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("Fertilizer plan for トマト (トマト)")
    assert "Method: published extension range" in out
    assert "  P: dose: soil P “low”" in out
    assert "  K: upper bound: soil test not given" in out
    totals = next(line.split() for line in out.splitlines() if line.strip().startswith("Totals"))
    # UF/IFAS: N 200, P2O5 120 ("Low"), K2O 125 lb/acre (its upper end) × 1.121 ÷ 10 = g/m².
    assert totals[1:] == ["22.42", "5.87", "13.45", "11.63", "14.01"]
    assert "topdress × 3: 生育期" in out and "per application" in out
    assert "https://bmp.ifas.ufl.edu/crop-recommendations/tomatoes" in out
    assert done.stderr == ""


def test_json_output_is_the_seed_document_and_can_go_to_a_file(tmp_path):
    target = tmp_path / "plan.json"
    args = ("-c", str(LETTUCE_FILE), "-j", "-o", str(target), "--region", "UK", "--soil-k", "3")
    done = recommend(*args, "--sns-index", "1", "--soil-texture", "sand")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and f"wrote {target}" in done.stderr
    plan = json.loads(target.read_text(encoding="utf-8"))
    assert set(plan) == PLAN_KEYS
    assert plan["crop"] == {"crop_id": "lettuce", "name": "lettuce"}
    assert plan["method"] == "RB209"
    assert plan["basis"]["K"] == "dose: index 3"
    assert sum(a["nutrients"]["N"] for a in plan["applications"]) == pytest.approx(
        plan["totals"]["N"], abs=1e-6
    )


def test_nmin_and_the_duev_inputs_reach_the_plan():
    done = recommend(
        "-c",
        str(LETTUCE_FILE),
        "-j",
        "--region",
        "Deutschland",
        "--nmin",
        "30",
        "--humus",
        "6",
        "--previous-crop",
        "Raps, Körnerleguminosen, Kohlgemüse",
    )
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    # Kopfsalat 150 − Nmin 30 − humus 20 − previous crop 10 = 90 kg N/ha = 9 g/m².
    assert plan["totals"]["N"] == 9.0
    assert plan["basis"]["N"] == "dose: DüV demand − Nmin"
    missing = recommend("-c", str(LETTUCE_FILE), "-j", "--region", "Deutschland")
    assert "Nmin not given: the full demand is shown as an upper bound" in missing.stderr


def test_the_mean_daily_heat_sum_turns_the_profiles_stage_heat_sums_into_the_season():
    done = recommend("-c", str(TOMATO_FILE), "-j", "--mean-daily-gdd", "15")
    assert done.returncode == 0, done.stderr
    notes = json.loads(done.stdout)["notes"]
    assert "Season: 130 days from the profile's stage heat sums" in notes
    bad = recommend("-c", str(TOMATO_FILE), "--mean-daily-gdd", "warm")
    assert bad.returncode == 2
    assert bad.stderr.startswith("furrow: --mean-daily-gdd must be a number, got 'warm'")
    impossible = recommend("-c", str(TOMATO_FILE), "--mean-daily-gdd", "1")
    assert impossible.returncode == 2
    assert "mean_daily_gdd: with the profile's stage heat sums (1950 °C·day)" in impossible.stderr


def test_organic_inputs_reach_the_plan():
    args = ("-c", str(LETTUCE_FILE), "-j", "--region", "UK", "--sns-index", "2")
    plain = json.loads(recommend(*args).stdout)
    plan = json.loads(recommend(*args, "--organic", "1,0,0").stdout)
    # 1 g/m² organic N comes off the basal dose.
    assert plan["totals"]["N"] == pytest.approx(plain["totals"]["N"] - 1, abs=0.01)


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (None, "cannot read {path}: No such file or directory"),
        (b"\xff\xfe", "cannot read {path}"),
        (b"{not json", "{path} is not JSON: Expecting property name"),
        (
            b'{"crop": {"name": "Tomato"}}',
            "{path} is not a crop profile: crop_profile.crop.crop_id: missing key",
        ),
        (b"[1, 2]", "{path} is not a crop profile: crop_profile: must be a JSON object"),
        (
            b'{"stage_requirements": []}',
            "{path} is not a crop profile: crop_profile.crop: missing key",
        ),
    ],
)
def test_unusable_input_exits_2_with_one_line(tmp_path, setup, message):
    path = tmp_path / "profile.json"
    if setup is not None:
        path.write_bytes(setup)
    done = recommend("-c", str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("furrow: " + message.format(path=path))
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--soil-p", "rich"], "furrow: soil_p: must be an RB209 index (0, 1, 2, 3, 4)"),
        (["--sns-index", "7"], "furrow: sns_index: must be a whole number from 0 to 6"),
        (["--nmin", "-3"], "furrow: nmin: must be from 0 to 500"),
        (["--soil-texture", "gravel"], "furrow: soil_texture: must be one of sand, loam"),
        (["--organic", "1,2"], "furrow: --organic takes N,P,K"),
        (["--target-yield", "lots"], "furrow: --target-yield must be a number"),
    ],
)
def test_bad_options_exit_2_with_one_line(args, message):
    done = recommend("-c", str(TOMATO_FILE), *args)
    assert done.returncode == 2 and done.stderr.startswith(message)
    assert len(done.stderr.strip().splitlines()) == 1


def test_an_unknown_crop_exits_3(tmp_path):
    path = tmp_path / "okra.json"
    path.write_text(json.dumps({"crop": {"crop_id": "okra", "name": "Okra"}}))
    done = recommend("-c", str(path))
    assert (done.returncode, done.stderr) == (3, "furrow: no reference data for Okra\n")


def test_a_provider_failure_exits_3(openai_server):
    openai_server.reply({"error": {"message": "model not found"}}, status=404)
    env = {"OPENAI_BASE_URL": openai_server.base_url, "OPENAI_API_KEY": "sk-test"}
    done = recommend("-c", str(TOMATO_FILE), "--provider", "openai", env=env)
    assert done.returncode == 3
    assert (
        done.stderr.startswith("furrow: the provider failed:") and "model not found" in done.stderr
    )
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_culture_exported_as_a_profile_chains_into_recommend(app, tmp_path):
    culture = create_culture(
        {
            "name": "Weißkohl",
            "variety": "Premiere",
            "distance_within_row_cm": 50,
            "row_spacing_cm": 60,
        }
    )
    db.session.commit()
    target = tmp_path / "kohl.json"
    exported = furrow(app, "crop", "export", str(culture.id), "-o", str(target))
    assert exported.returncode == 0, exported.stderr
    profile = json.loads(target.read_text(encoding="utf-8"))
    assert profile["crop"]["crop_id"] == "cabbage"
    assert profile["crop"]["name"] == "Weißkohl" and profile["crop"]["variety"] == "Premiere"
    assert profile["crop"]["area_per_unit"] == 0.3
    assert profile["stage_requirements"] == []
    done = recommend("-c", str(target), "-j", "--region", "England")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["method"] == "RB209"

    missing = furrow(app, "crop", "export", "999999", "-o", str(target))
    assert (missing.returncode, missing.stderr) == (2, "furrow: no culture #999999\n")

"""The season a plan splits its nitrogen over: the days given, else the crop profile's own
stage heat sums over a stated mean daily heat sum, else the library's typical duration; the
plan says which."""

import copy

import pytest

from tests.fertilizer.profiles import TOMATO_FILE, load, profile
from tests.fertilizer.test_web import finished, run_id_of, upload
from tests.support.html import soup
from webapp.extensions import db
from webapp.fertilizer.forms import form_document
from webapp.fertilizer.gateways.reference import ReferenceGateway
from webapp.fertilizer.interactor import recommend
from webapp.fertilizer.request import RequestInvalid, heat_sum, parse_request
from webapp.fertilizer.season import season_of
from webapp.jobs.models import Run
from webapp.problems import Invalid
from webapp.reference.library import library

GATEWAY = ReferenceGateway()
FAO_56 = "https://www.fao.org/4/x0490e/x0490e0b.htm"
# The agrr tomato profile's stages: 育苗期 300, 定植期 50, 生育期 800, 収穫期 800 °C·day.
TOMATO_HEAT_SUM = 1950


def plan_for(document):
    return recommend(document, GATEWAY).plan


def test_the_profiles_stage_heat_sums_over_a_stated_mean_give_the_season():
    plan = plan_for({"crop_profile": load(TOMATO_FILE), "mean_daily_gdd": 15})
    # 1950 °C·day ÷ 15 °C·day per day = 130 days: 100–150 days, so 40 % of N basal and two
    # topdressings (the library's 158 days would give three).
    assert (
        "Season: 130 days from the profile's stage heat sums: 300 + 50 + 800 + 800 = 1950"
        " °C·day ÷ 15 °C·day per day" in plan.notes
    )
    basal, topdress = plan.applications
    assert topdress.count == 2
    assert pytest.approx(plan.totals.N * 0.4, abs=0.01) == basal.nutrients.N
    assert "day ~" in topdress.schedule_hint
    assert FAO_56 not in plan.sources  # the library's duration was not used


def test_without_a_mean_daily_heat_sum_the_library_duration_serves_and_the_plan_says_why():
    plan = plan_for({"crop_profile": load(TOMATO_FILE)})
    assert "Season: 158 days, the midpoint of FAO-56 Table 11" in plan.notes
    assert f"stage heat sums ({TOMATO_HEAT_SUM} °C·day in all) are not used" in plan.notes
    assert plan.applications[1].count == 3
    assert FAO_56 in plan.sources


def test_a_profile_without_stage_heat_sums_uses_the_library_duration():
    plan = plan_for({"crop_profile": profile("Tomato"), "mean_daily_gdd": 15})
    assert "Season: 158 days, the midpoint of FAO-56" in plan.notes
    assert "heat sums" not in plan.notes
    partial = load(TOMATO_FILE)
    del partial["stage_requirements"][1]["thermal"]
    request = parse_request({"crop_profile": partial, "mean_daily_gdd": 15})
    assert heat_sum(request.profile.stages) is None
    season = season_of(request, library().get("tomato"))
    assert (season.days, season.basis) == (158, "library")


def test_days_given_come_before_the_heat_sums():
    document = {"crop_profile": load(TOMATO_FILE), "mean_daily_gdd": 15, "growth_period_days": 45}
    plan = plan_for(document)
    assert "Season: 45 days, the growth period given." in plan.notes
    assert [a.type for a in plan.applications] == ["basal"]


def test_a_season_no_figure_gives_is_unknown_and_says_so():
    request = parse_request({"crop_profile": profile("Cabbage")})
    season = season_of(request, library().get("cabbage"))
    assert (season.days, season.basis, season.note) == (None, "unknown", "Season: unknown.")
    result = recommend({"crop_profile": profile("Cabbage")}, GATEWAY)
    assert "season_unknown" in [issue.code for issue in result.issues]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (0, "must be above zero, got 0"),
        (-3, "must be above zero, got -3"),
        (80, "must be at most 50, got 80"),
        ("15", "must be a number, got '15'"),
        (
            2,
            "with the profile's stage heat sums (1950 °C·day) it gives 975 days;"
            " a season is at most 730",
        ),
    ],
)
def test_a_mean_daily_heat_sum_that_cannot_be_is_refused_with_the_reason(value, problem):
    with pytest.raises(RequestInvalid) as refused:
        parse_request({"crop_profile": load(TOMATO_FILE), "mean_daily_gdd": value})
    assert refused.value.details == {"mean_daily_gdd": problem}


def test_the_stage_heat_sums_are_read_as_the_profile_gives_them():
    raw = copy.deepcopy(load(TOMATO_FILE))
    assert heat_sum(parse_request({"crop_profile": raw}).profile.stages) == TOMATO_HEAT_SUM
    raw["stage_requirements"][3]["thermal"]["required_gdd"] = 1000.0
    assert heat_sum(parse_request({"crop_profile": raw}).profile.stages) == 2150
    assert heat_sum(()) is None


def test_the_form_passes_a_typed_mean_daily_heat_sum_and_names_a_bad_one():
    document = form_document({"mean_daily_gdd": "12,5"}, load(TOMATO_FILE))
    assert document["mean_daily_gdd"] == 12.5
    assert "mean_daily_gdd" not in form_document({"mean_daily_gdd": " "}, load(TOMATO_FILE))
    with pytest.raises(Invalid) as refused:
        form_document({"mean_daily_gdd": "warm"}, load(TOMATO_FILE))
    assert [(p.loc, p.message) for p in refused.value.problems] == [
        ("mean_daily_gdd", "Give a number, not 'warm'.")
    ]


def test_the_web_form_marks_an_impossible_mean_on_its_field(client_as, idle_queue):
    editor = client_as("editor")
    response = upload(editor, TOMATO_FILE.read_bytes(), mean_daily_gdd="2")
    assert response.status_code == 422
    errors = {error["id"]: error.get_text() for error in soup(response).select("p.error")}
    assert errors == {
        "mean_daily_gdd-error": "Mean daily heat sum: with the profile's stage heat sums"
        " (1950 °C·day) it gives 975 days; a season is at most 730"
    }
    assert 'value="2"' in response.get_data(as_text=True)  # nothing typed is lost
    assert db.session.query(Run).count() == 0


@pytest.mark.worker
def test_a_plan_asked_with_a_mean_daily_heat_sum_shows_the_season_it_used(client_as, worker):
    editor = client_as("editor")
    run_id = run_id_of(upload(editor, TOMATO_FILE.read_bytes(), mean_daily_gdd="15"))
    run = finished(run_id)
    assert run.status == "succeeded", (run.status, run.error_code, run.error_message)
    page = editor.get(editor.get(f"/fertilizer/runs/{run_id}").headers["Location"])
    text = page.get_data(as_text=True)
    assert "mean daily heat sum 15 °C·day" in text
    assert "Season: 130 days from the profile&#39;s stage heat sums" in text
    # Two topdressings at a third and two thirds of the 130 days.
    assert "day ~43" in text and "day ~87" in text


def test_the_api_takes_the_mean_daily_heat_sum(client_as):
    editor = client_as("editor")
    headers = {"X-CSRFToken": editor.csrf_token("/")}
    document = {"crop_profile": load(TOMATO_FILE), "mean_daily_gdd": 15}
    made = editor.post("/api/v1/fertilizer/recommend", json=document, headers=headers)
    assert made.status_code == 200, made.get_data(as_text=True)
    notes = made.get_json()["plan"]["notes"]
    assert "Season: 130 days from the profile's stage heat sums" in notes
    document["mean_daily_gdd"] = 0
    refused = editor.post("/api/v1/fertilizer/recommend", json=document, headers=headers)
    assert refused.status_code == 422
    assert refused.get_json()["error"]["details"]["mean_daily_gdd"] == "must be above zero, got 0"

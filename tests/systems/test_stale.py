"""Stale values as plain functions: a calculated value remembers the inputs it read; when one
reads differently now it is stale, with both readings; a person's own value never is."""

import copy

from tests.systems.test_system_api import itinera
from webapp.systems.conversation import assistant_message, user_message
from webapp.systems.document import value_path
from webapp.systems.grid import InputChange, columns, rows, waiting
from webapp.systems.runs import calculate_cell
from webapp.systems.stale import basis, stale_at, stale_values

STAMP = "2026-03-01T00:00:00.000Z"


def rotation(price="1,10 €/L", fuel="- **Carburant**: 20 L/ha"):
    """The test rotation, its system stating the fuel price and its second intervention the
    fuel it burns."""
    document = itinera()
    document["assumptions"] = f"- **Prix du GNR**: {price}\n" if price else ""
    document["steps"][0]["interventions"][1]["assumptions"] = fuel
    return document


def place(document):
    step = document["steps"][0]
    return step, step["interventions"][1]


def applied(document, key, **entry):
    """document with key's calculated value on the second intervention as an apply leaves
    it: the value, reviewed, and the answer (with its inputs) in its conversation."""
    step, work = place(document)
    path = value_path(step["id"], work["id"], key)
    kept, _row = calculate_cell(document, path)
    answer = assistant_message(kept, STAMP)
    work.setdefault("values", []).append(
        {"key": key, "value": kept["value"], "reviewed": True, "conversation": [answer]} | entry
    )
    return path, kept


def with_price(document, price):
    changed = copy.deepcopy(document)
    changed["assumptions"] = f"- **Prix du GNR**: {price}\n"
    return changed


def test_a_changed_fuel_price_makes_the_fuel_cost_stale_with_both_readings():
    document = rotation()
    path, kept = applied(document, "coutGnr")
    assert kept["value"] == 22 and kept["inputs"]["assumption:Prix GNR"] == "1,10 €/L"
    assert stale_values(document) == {}
    now = with_price(document, "1,30 €/L")
    assert stale_values(now) == {path: [InputChange("Prix du GNR", "1,10 €/L", "1,30 €/L")]}
    step, work = place(now)
    assert stale_at(now, step["id"], work["id"]) == stale_values(now)
    assert stale_at(now, step["id"], None) == {}
    # The grid never shows it reviewed: it is stale, in words.

    def cell(stale=None):
        shown = rows(now, columns(now), stale=stale)
        return next(r for r in shown if r.intervention_id == work["id"]).cell("coutGnr")

    assert cell().state == "reviewed" and cell().mark == "✓"
    shown = cell(stale_values(now))
    assert shown.state == "stale" and shown.mark not in ("✓", "★", "?")
    assert shown.meaning == "stale: Prix du GNR 1,10 €/L → 1,30 €/L"


def test_a_price_stated_after_the_cited_one_was_used_makes_it_stale():
    document = rotation(price=None)
    path, kept = applied(document, "coutGnr")
    assert kept["inputs"]["assumption:Prix GNR"] == ""  # not stated: the cited price
    assert stale_values(with_price(document, "1,30 €/L")) == {
        path: [InputChange("Prix du GNR", "", "1,30 €/L")]
    }
    assert str(InputChange("Prix du GNR", "", "1,30 €/L")) == ("Prix du GNR not stated → 1,30 €/L")


def test_an_unrelated_change_does_not():
    document = rotation()
    applied(document, "coutGnr")
    changed = copy.deepcopy(document)
    changed["assumptions"] += "- **Corps**: 4\n"  # read by no fuel cost
    step, work = place(changed)
    work["description"] = "Pailles laissées au sol."  # names no other operation
    other = step["interventions"][2]
    other["assumptions"] = "- **Prix du GNR**: 2 €/L"  # another intervention's
    changed["steps"][1]["assumptions"] = "- **Carburant**: 90 L/ha"  # another step's
    assert stale_values(changed) == {}


def test_a_changed_input_value_of_the_intervention_makes_it_stale():
    document = rotation(fuel="")
    _step, work = place(document)
    work["values"] = [{"key": "gnr", "value": 20, "reviewed": True}]
    path, kept = applied(document, "coutGnr")
    assert kept["value"] == 22 and kept["inputs"]["value:gnr"] == "20"
    work["values"][0]["value"] = 25
    assert stale_values(document) == {path: [InputChange("Fuel", "20 L/ha", "25 L/ha")]}


def test_a_value_worked_out_on_the_way_and_applied_as_it_was_is_not_a_change():
    document = rotation()
    path, kept = applied(document, "coutGnr")
    assert kept["inputs"]["calculated:gnr"] == "20"
    applied(document, "gnr")  # the same run's fuel, applied too
    assert stale_values(document) == {}
    _step, work = place(document)
    work["values"][-1]["value"] = 30  # a person's fuel now: the cost rests on 20
    assert stale_values(document)[path] == [InputChange("Fuel", "20 L/ha", "30 L/ha")]


def test_a_persons_own_value_is_never_stale():
    document = rotation()
    applied(document, "coutGnr")
    entry = place(document)[1]["values"][0]
    typed = {"key": "coutGnr", "value": 40, "reviewed": True}
    assert basis(typed) is None
    edited = entry | {"value": 40}  # a reviewer changed it before applying it
    assert basis(edited) is None
    said = user_message("Set to 22.", "manual_edit", 22, 22, STAMP)
    assert basis(entry | {"conversation": [*entry["conversation"], said]}) is None
    for own in (typed, edited):
        mine = copy.deepcopy(document)
        place(mine)[1]["values"] = [own]
        assert stale_values(with_price(mine, "1,30 €/L")) == {}


def test_the_latest_answer_that_gave_the_value_is_its_basis():
    document = rotation()
    _path, kept = applied(document, "coutGnr")
    entry = place(document)[1]["values"][0]
    later = {"value": 26, "inputs": {"assumption:Prix GNR": "1,30"}}
    newer = assistant_message(kept | later, STAMP)
    # A recalculation not applied yet: the value still rests on the first answer.
    assert basis(entry | {"conversation": [*entry["conversation"], newer]}) == kept["inputs"]
    assert basis(entry | {"value": 26, "conversation": [*entry["conversation"], newer]}) == {
        "assumption:Prix GNR": "1,30"
    }


def test_a_files_conversation_is_read_only_for_what_a_calculator_wrote():
    document = rotation()
    path, _kept = applied(document, "coutGnr")
    entry = place(document)[1]["values"][0]
    answer = entry["conversation"][0]
    assert basis(entry | {"conversation": [answer | {"inputs": {"value:gnr": 20}}]}) is None
    assert basis(entry | {"conversation": [answer | {"inputs": "Prix GNR"}]}) is None
    odd = answer | {"inputs": {"value:gnr": "twenty"}}
    entry["conversation"] = [odd]
    place(document)[1]["values"].append({"key": "gnr", "value": 20})
    assert stale_values(document) == {path: [InputChange("Fuel", "twenty", "20 L/ha")]}


def test_a_stale_prediction_is_not_offered_for_approval():
    document = rotation()
    path, _kept = applied(document, "coutGnr", reviewed=False, confidence="high")
    assert path in [w.path for w in waiting(document, "high", stale_values(document))]
    now = with_price(document, "1,30 €/L")
    assert path in [w.path for w in waiting(now, "high")]
    assert path not in [w.path for w in waiting(now, "high", stale_values(now))]

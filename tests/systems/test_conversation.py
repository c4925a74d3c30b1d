"""The conversation a value keeps: at most ten messages, the oldest pruned first, the system
message kept; what a person asked keeps its action and the values before and after."""

import copy

import pytest

from tests.systems.test_system_api import itinera
from webapp.systems.conversation import (
    MOST_MESSAGES,
    assistant_message,
    pruned,
    system_message,
    transcript,
    user_message,
)
from webapp.systems.document import add_messages, validate_document, value_entry, value_path

STAMP = "2026-01-13T10:30:00.000Z"


def said(n: int) -> dict:
    return {"role": "user" if n % 2 else "assistant", "content": f"message {n}", "timestamp": STAMP}


def test_at_most_ten_messages_the_oldest_go_first_the_system_message_stays():
    messages = [system_message("Fuel of Labour.", STAMP), *(said(n) for n in range(1, 15))]
    kept = pruned(messages)
    assert len(kept) == MOST_MESSAGES
    assert kept[0]["role"] == "system" and kept[0]["content"] == "Fuel of Labour."
    assert [m["content"] for m in kept[1:]] == [f"message {n}" for n in range(6, 15)]


def test_without_a_system_message_the_newest_ten_are_kept():
    kept = pruned([said(n) for n in range(1, 13)])
    assert [m["content"] for m in kept] == [f"message {n}" for n in range(3, 13)]
    assert pruned([said(1)]) == [said(1)]


def test_a_user_message_keeps_its_action_and_values():
    message = user_message("La charrue n'a que 4 corps", "refine", 21, 18.5, STAMP)
    assert message == {
        "role": "user",
        "content": "La charrue n'a que 4 corps",
        "action": "refine",
        "previous_value": 21,
        "new_value": 18.5,
        "timestamp": STAMP,
    }
    with pytest.raises(ValueError, match="manual_edit, approve, refine, calculate"):
        user_message("?", "edit", None, None, STAMP)


def test_an_answer_is_kept_as_the_seed_shows_it():
    answer = {
        "value": 18.5,
        "unit": "L/ha",
        "assumptions": ["Corps: 4"],
        "calculation_steps": ["21 × 4/5 = 16.8 L/ha"],
        "sources": [{"title": "Barème d'entraide", "source_url": "https://example.org"}],
        "confidence": "medium",
        "caveats": [{"message": "A single source."}],
    }
    message = assistant_message(answer, STAMP)
    assert message["content"].startswith("18.5 L/ha\n- 21 × 4/5")
    assert message["sources"] == ["Barème d'entraide"] and message["caveats"] == [
        "A single source."
    ]
    assert message["confidence"] == "medium" and message["assumptions"] == ["Corps: 4"]
    assert "assistant: 18.5 L/ha" in transcript([message])


def test_an_answer_without_a_value_is_kept_but_never_read_back_to_the_model():
    asked = user_message("Corps: 4", "refine", 18.5, None, STAMP)
    failed = assistant_message(
        {"value": None, "message": "The model's answer was unusable."}, STAMP
    )
    assert failed["unusable"] is True and "unusable" in failed["content"]
    read_back = transcript([asked, failed])
    assert "Corps: 4" in read_back and "unusable" not in read_back


def test_messages_are_added_to_a_value_and_updated_at_moves_up():
    document = validate_document(itinera())
    step = document["steps"][0]
    work = step["interventions"][0]
    path = value_path(step["id"], work["id"], "gnr")
    before = copy.deepcopy(document)
    first = [
        system_message("Fuel.", STAMP),
        user_message("Calculate.", "calculate", None, 21, STAMP),
    ]
    document = add_messages(document, path, first, STAMP)
    assert value_entry(before, path) is None  # the given document is not changed
    entry = value_entry(document, path)
    assert entry["key"] == "gnr" and "value" not in entry
    assert entry["conversation"][1]["action"] == "calculate"
    assert entry["conversation"][1]["new_value"] == 21  # extra keys are kept by validation
    changed = document["steps"][0]
    assert changed["updatedAt"] == changed["interventions"][0]["updatedAt"] == STAMP
    assert document["updatedAt"] == STAMP
    many = [said(n) for n in range(20)]
    document = add_messages(document, path, many, STAMP)
    conversation = value_entry(document, path)["conversation"]
    assert len(conversation) == MOST_MESSAGES and conversation[0]["content"] == "Fuel."

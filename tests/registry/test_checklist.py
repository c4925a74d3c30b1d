"""The bundled checklist holds Regen Network's soil-carbon methodology v1.2.2 as its public
copy states it; another checklist of the same shape is read with every problem by path."""

import json

import pytest

from webapp.registry.checklist import (
    ChecklistInvalid,
    StructuredField,
    ValidationType,
    bundled,
    read_checklist,
)


def test_the_bundled_checklist_has_the_23_requirements_of_v1_2_2():
    checklist = bundled()
    assert checklist.methodology_id == "soil-carbon-v1.2.2" and checklist.version == "1.2.2"
    assert [r.requirement_id for r in checklist.requirements] == [
        f"REQ-{n:03d}" for n in range(1, 24)
    ]
    types = {r.requirement_id: r.validation_type for r in checklist.requirements}
    assert types["REQ-002"] == ValidationType.cross_document
    assert (
        types["REQ-016"] == ValidationType.manual and not checklist.requirement("REQ-016").mandatory
    )
    structured = {r.requirement_id for r in checklist.requirements if r.structured_fields}
    assert structured == {"REQ-002", "REQ-007", "REQ-010", "REQ-012", "REQ-013", "REQ-018"}
    # Every structured requirement names its fields; the others carry none.
    for requirement in checklist.requirements:
        needs_fields = requirement.validation_type in (
            ValidationType.structured_field,
            ValidationType.cross_document,
        )
        assert bool(requirement.structured_fields) == needs_fields
    assert checklist.requirement("REQ-018").structured_fields == [
        StructuredField.buffer_pool_percentage
    ]
    assert "20%" in checklist.requirement("REQ-018").requirement_text


def test_a_checklist_of_the_same_shape_is_read():
    text = json.dumps(
        {
            "methodology_id": "grassland-v1",
            "methodology_name": "Grassland",
            "requirements": [
                {
                    "requirement_id": "G-1",
                    "category": "Land Tenure",
                    "requirement_text": "Show tenure.",
                    "validation_type": "cross_document",
                    "structured_fields": ["owner_name"],
                    "unknown_key": "kept out",
                }
            ],
        }
    )
    checklist = read_checklist(text)
    assert checklist.requirement("G-1").structured_fields == [StructuredField.owner_name]


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"validation_type": "regex"}, "requirements[0].validation_type"),
        ({"structured_fields": ["owner"]}, "requirements[0].structured_fields[0]"),
        ({"requirement_text": ""}, "requirements[0].requirement_text"),
        ({"mandatory": "yes"}, "requirements[0].mandatory"),
    ],
)
def test_a_bad_checklist_names_each_problem_by_path(change, where):
    requirement = {
        "requirement_id": "G-1",
        "category": "General",
        "requirement_text": "Text.",
    } | change
    text = json.dumps(
        {"methodology_id": "m", "methodology_name": "M", "requirements": [requirement]}
    )
    with pytest.raises(ChecklistInvalid) as refused:
        read_checklist(text)
    assert refused.value.problems[0].loc == where


def test_duplicate_ids_and_non_json_are_refused():
    requirement = {"requirement_id": "A", "category": "C", "requirement_text": "T"}
    twice = {"methodology_id": "m", "methodology_name": "M", "requirements": [requirement] * 2}
    with pytest.raises(ChecklistInvalid, match="A appears twice"):
        read_checklist(json.dumps(twice))
    with pytest.raises(ChecklistInvalid, match="not JSON"):
        read_checklist("{nope")

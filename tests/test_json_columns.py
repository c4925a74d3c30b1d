"""JSON columns' text: what json wrote and read before is written and read the same."""

import json
import math

import pytest

from webapp.json_columns import json_text, json_value

VALUES = [
    None,
    0,
    -2.5,
    1e16,
    "Kopfsalat – “Maikönig”",
    [1, {"a": None, "b": [True, False]}],
    {"min": 50, "max": 80.25},
]


@pytest.mark.parametrize("value", VALUES)
def test_values_come_back_as_they_went_in(value):
    assert json_value(json_text(value)) == value
    assert json.loads(json_text(value)) == value


def test_keys_that_are_not_text_are_written_as_json_writes_them():
    assert json.loads(json_text({1: "a", 2.5: "b"})) == json.loads(json.dumps({1: "a", 2.5: "b"}))


def test_what_orjson_refuses_goes_through_json():
    huge = 2**70
    assert json_value(json_text([huge])) == [huge]
    assert math.isnan(json_value("[NaN]")[0])  # written by json before
    assert json_value(b'{"a": 1}') == {"a": 1}
    assert json_value(memoryview(b"[1]")) == [1]
    with pytest.raises(TypeError):
        json_text({1, 2})


def test_a_number_sqlite_kept_as_a_number_is_left_to_sqlalchemy():
    # SQLAlchemy's SQLite JSON type keeps a stored number when reading it raises TypeError.
    with pytest.raises(TypeError):
        json_value(42.9)

"""A job names its kind by path; the runner finds the app's kinds among the registered ones and
imports no module of the app by a name a job carries."""

import sys

import pytest

from tests.support.kinds import GatedItems
from webapp.jobs.kinds import RUN_KINDS, load_kind


def test_the_apps_kinds_are_the_registered_ones(app):
    for kind in RUN_KINDS.values():
        assert load_kind(kind.path()) is kind


def test_a_job_queued_before_its_kind_moved_finds_it_by_its_class_name(app):
    for kind in RUN_KINDS.values():
        if kind.__module__.startswith("webapp."):
            assert load_kind(f"webapp.moved_away:{kind.__qualname__}") is kind
    assert "webapp.moved_away" not in sys.modules


def test_a_module_of_the_app_is_never_imported_by_a_jobs_name(app):
    assert "webapp.never_imported" not in sys.modules
    with pytest.raises(LookupError, match="not a registered run kind"):
        load_kind("webapp.never_imported:Kind")
    with pytest.raises(LookupError):
        load_kind("webapp.cultures.views:bp")
    assert "webapp.never_imported" not in sys.modules


def test_a_kind_from_outside_the_app_registers_itself_as_it_is_imported(app):
    assert load_kind(GatedItems.path()) is GatedItems
    with pytest.raises(TypeError, match="is not a RunKind"):
        load_kind("json:dumps")

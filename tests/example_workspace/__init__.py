"""Seed lots: a small workspace of the tests' own, built as the README's "Adding a workspace"
says, to hold that a workspace is its records, a review target, a run kind, its rules and how
its records look — the review page, apply, reject, undo and the API are the core's.

A seed lot names its crop; a run looks up its thousand-kernel weight in the reference library
and proposes it, cited. Registered only by the test that uses it (test_seed_lots.py)."""

from flask import Blueprint

bp = Blueprint("seed_lots", __name__, url_prefix="/seed-lots", template_folder="templates")
blueprints = (bp,)

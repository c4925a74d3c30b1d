"""Registry reviews (seed 004): a carbon project's documents against a methodology checklist,
evidence that carries its structured fields and its page from the start, cross-document
checks, and a person's verdict per requirement."""

from flask import Blueprint

bp = Blueprint("registry", __name__, url_prefix="/registry")
# Its routes are in api.py, which takes this blueprint as it loads; once loaded, the package's
# `api` names that module, so no other module adds routes by this name.
api = Blueprint("registry_api", __name__, url_prefix="/api/v1/reviews")
blueprints = (bp, api)

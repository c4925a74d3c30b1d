"""The document library: uploaded documents and the reference library, searchable as passages."""

from flask import Blueprint

bp = Blueprint("library", __name__, url_prefix="/library")
api = Blueprint("library_api", __name__, url_prefix="/api/v1/library")
blueprints = (bp, api)

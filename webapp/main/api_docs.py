"""The API contract, published: the OpenAPI document and a page that reads it to people."""

from __future__ import annotations

from flask import current_app, jsonify

from webapp.contract import describe, openapi_document
from webapp.main import bp
from webapp.rendering import render_page


@bp.get("/api/v1/openapi.json")
def openapi():
    """The OpenAPI 3.1 document of every API call."""
    return jsonify(openapi_document(current_app))


@bp.get("/api/docs")
def api_docs():
    document = openapi_document(current_app)
    return render_page("main/api_docs.html", document=document, describe=describe)

"""How large a request body may be, decided before anything reads it.

A form is parsed whole in memory (the CSRF check reads it before any view runs), and a JSON
body is read whole too: a few megabytes of "%2C" or "{}," grow the web process by a hundred
times their size. So every route takes a small body unless it says it takes an upload: a
sign-in or other public form a few kilobytes, any other form or JSON body 512 KB, and only a
route marked `takes_upload` the upload limit (FURROW_MAX_UPLOAD_MB, or the route's own), and
that only as multipart or a document body: a URL-encoded form is small everywhere. A form of
more fields than FORM_MAX_PARTS is refused too, in either encoding."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from flask import Flask, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

from webapp.auth.access import PUBLIC_ATTR
from webapp.uploads import size_text

F = TypeVar("F", bound=Callable)
UPLOAD_ATTR = "_furrow_takes_upload"
PUBLIC_MAX_BYTES = 16 * 1024  # a sign-in or first-administrator form, with room to spare
BODY_MAX_BYTES = 512 * 1024  # any other form or JSON body: thousands of ids, a long note
FORM_MAX_PARTS = 10_000  # as many ids as any list in a body may hold
FORM_MAX_MEMORY = 512 * 1024  # a multipart form's field that is not a file
PARTS_SEPARATOR = b"&"


@dataclass(frozen=True)
class Upload:
    max_bytes: Callable[[], int] | None  # None: the configured upload limit
    field_bytes: int


def takes_upload(max_bytes: Callable[[], int] | None = None, field_bytes: int = FORM_MAX_MEMORY):
    """Mark a view that takes a file (a multipart upload, or a document sent as the body): its
    body may be as large as max_bytes() says, by default the configured upload limit. field_bytes is
    what a multipart form's field that is not a file may hold (a previewed file's text, posted
    back to be confirmed)."""

    def mark(view: F) -> F:
        setattr(view, UPLOAD_ATTR, Upload(max_bytes, field_bytes))
        return view

    return mark


def configure_bodies(app: Flask) -> None:
    """Werkzeug's own limits on a multipart form, and this route's limit on every body, checked
    before any other hook (the CSRF check reads the form)."""
    app.config.update(MAX_FORM_MEMORY_SIZE=FORM_MAX_MEMORY, MAX_FORM_PARTS=FORM_MAX_PARTS)
    app.before_request(cap_request_body)


def cap_request_body() -> None:
    """before_request, before anything reads the body: this route's limit on it."""
    if request.routing_exception is not None:
        return  # 404 and 405 read no body
    view = current_app.view_functions.get(request.endpoint or "")
    upload = upload_of(view)
    if upload is not None:
        if upload.max_bytes is not None:
            request.max_content_length = upload.max_bytes()
        request.max_form_memory_size = upload.field_bytes
        return
    if getattr(view, PUBLIC_ATTR, False):
        request.max_content_length = PUBLIC_MAX_BYTES
    else:
        # A form that is not multipart is parsed whole, whatever the route: kept small.
        request.max_content_length = BODY_MAX_BYTES
    # Werkzeug caps the fields of a multipart form only; this one's are counted here, on the
    # bytes it caches for the parse that follows.
    if form_encoded() and request.get_data(cache=True).count(PARTS_SEPARATOR) >= FORM_MAX_PARTS:
        raise RequestEntityTooLarge(f"The form has more than {FORM_MAX_PARTS:,} fields.")


def form_encoded() -> bool:
    return request.mimetype == "application/x-www-form-urlencoded"


def upload_of(view: Callable | None) -> Upload | None:
    """The view's upload, if it takes one and this request sends it as an upload may come (a
    URL-encoded form never does)."""
    upload = getattr(view, UPLOAD_ATTR, None)
    return None if form_encoded() else upload


def too_large_message(limit: int | None) -> str:
    """What a 413 says: the upload limit for an upload, the body limit for anything else."""
    if limit is None:
        return "The request is larger than this server accepts."
    if upload_of(current_app.view_functions.get(request.endpoint or "")) is not None:
        return f"The upload is larger than the {size_text(limit)} this server accepts."
    return (
        f"The request is larger than the {size_text(limit)} this page accepts; "
        "only uploads may be larger."
    )

"""Compressed answers (Flask-Compress): pages, htmx fragments, JSON, CSV exports, CSS and JS go
br-compressed to a client that accepts br, else gzip; nothing under 500 bytes. A table page of
many rows is mostly repeated markup and shrinks tenfold or more (bench/compression_figures.py).

A streamed answer is compressed as it streams, chunk by chunk, never gathered whole (br holds
about half a megabyte before its first bytes): br, else deflate (gzip is not among
Flask-Compress's streaming algorithms, on its maintainers' advice). FURROW_COMPRESS=0 leaves
compression to a proxy in front."""

from __future__ import annotations

from flask import Flask, Response
from flask_compress import Compress

TYPES = (
    "text/html",
    "application/json",
    "text/csv",
    "text/css",
    "text/javascript",
    "application/javascript",
)
MIN_BYTES = 500

compress = Compress()


def init_compression(app: Flask, enabled: bool) -> None:
    if not enabled:
        return
    app.config.update(
        COMPRESS_REGISTER=False,  # compress_answer below is the hook
        COMPRESS_MIMETYPES=list(TYPES),
        COMPRESS_ALGORITHM=["br", "gzip"],
        COMPRESS_ALGORITHM_STREAMING=["br", "deflate"],
        COMPRESS_STREAMS=True,
        COMPRESS_MIN_SIZE=MIN_BYTES,
        COMPRESS_BR_LEVEL=4,
        # A 256 KB window (not 4 MB): a br stream lets out its first bytes after half a megabyte
        # of input rather than holding 8 MB of it, and pages compress as well.
        COMPRESS_BR_WINDOW=18,
        COMPRESS_LEVEL=6,
    )
    compress.init_app(app)
    app.after_request(compress_answer)


def compress_answer(response: Response) -> Response:
    # A part of a file (206, answering a Range request) goes as it is: its Content-Range counts
    # the file's own bytes, which a compressed body would not have.
    if response.status_code == 206:
        return response
    body = response.response
    response = compress.after_request(response)
    if response.response is not body and hasattr(body, "close"):
        # Compressing as it streams wraps the body: what it wrapped (a static file) is still
        # closed when the answer is.
        response.call_on_close(body.close)
    return response

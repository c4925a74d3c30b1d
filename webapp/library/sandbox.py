"""Reading a PDF (or another file a reader turns into pages, such as a workbook) in a child
process held to PdfLimits, so a hostile file costs a worker nothing.

The worker's job starts `python -m webapp.library.sandbox LIMITS READER NAME CODE` with the
file on stdin (READER: the function that reads it, as module:name; NAME and CODE: what refusals
call the file). The child caps its own address space and CPU time before it reads anything,
dies with its parent, and answers one JSON object on stdout: {"pages"} or {"code", "message"}.
The parent adds a wall clock limit; whatever ends the child (a limit, a crash) becomes an
UploadRefused saying why.
"""

from __future__ import annotations

import importlib
import json
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict

from webapp.jobs.processes import die_with_parent
from webapp.library.extract import PDF_LIMITS, PdfLimits, pdf_pages, text_of_pages
from webapp.uploads import UploadRefused


def bounded_pdf_text(data: bytes, limits: PdfLimits = PDF_LIMITS) -> str:
    """The PDF's text, read by a child process; UploadRefused when it cannot be read or
    breaks a limit."""
    return text_of_pages(bounded_pdf_pages(data, limits))


def bounded_pdf_pages(data: bytes, limits: PdfLimits = PDF_LIMITS) -> list[str]:
    """Each page's text, read by a child process, as bounded_pdf_text reads it."""
    return bounded_pages(data, pdf_pages, limits)


Reader = Callable[[bytes, PdfLimits], list[str]]


def bounded_pages(
    data: bytes,
    reader: Reader,
    limits: PdfLimits = PDF_LIMITS,
    name: str = "PDF",
    code: str = "pdf",
) -> list[str]:
    """The pages reader (a module's function) makes of the file, read by a child process held
    to limits; name and code: what refusals call the file ("the PDF", pdf_too_slow)."""
    too_slow = UploadRefused(
        f"{code}_too_slow",
        f"Reading the {name} took longer than {limits.seconds} s; the library does not "
        "keep it. Split it, or save it again from another program.",
    )
    path = f"{reader.__module__}:{reader.__qualname__}"
    try:
        done = subprocess.run(
            [sys.executable, "-m", __name__, json.dumps(asdict(limits)), path, name, code],
            input=data,
            capture_output=True,
            timeout=limits.seconds + 5,  # CPU time is the child's own limit; this is waiting
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise too_slow from None
    if done.returncode == -signal.SIGXCPU:
        raise too_slow
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        raise _too_much_memory(limits, name, code) from None  # killed before it could answer
    if "pages" not in answer:
        raise UploadRefused(answer["code"], answer["message"])
    return answer["pages"]


def _too_much_memory(limits: PdfLimits, name: str, code: str) -> UploadRefused:
    return UploadRefused(
        f"{code}_too_large",
        f"Reading the {name} needed more than {limits.memory_mb} MB of memory; the library "
        "does not keep it.",
    )


def main() -> None:
    limits = PdfLimits(**json.loads(sys.argv[1]))
    module, _, function = sys.argv[2].partition(":")
    reader: Reader = getattr(importlib.import_module(module), function)
    name, code = sys.argv[3], sys.argv[4]
    die_with_parent()
    memory = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.seconds, limits.seconds + 1))
    data = sys.stdin.buffer.read()
    try:
        answer = {"pages": reader(data, limits)}
    except UploadRefused as refused:
        answer = {"code": refused.code, "message": str(refused)}
    except MemoryError:
        refused = _too_much_memory(limits, name, code)
        answer = {"code": refused.code, "message": str(refused)}
    sys.stdout.write(json.dumps(answer))


if __name__ == "__main__":
    main()

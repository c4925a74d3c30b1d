"""PDFs written object by object, for files no PDF library would write."""

from __future__ import annotations


def pdf_of(objects: list[bytes], trailer: bytes = b"/Root 1 0 R") -> bytes:
    """A PDF 1.4 file of the given object bodies (numbered from 1) with its cross-reference
    table; trailer holds the trailer dictionary's entries besides /Size."""
    pdf = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(pdf)
    pdf += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    pdf += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    pdf += b"trailer\n<< /Size %d %s >>\n" % (len(objects) + 1, trailer)
    pdf += b"startxref\n%d\n%%%%EOF\n" % xref
    return pdf

"""`furrow registry evaluate REVIEW_ID --verdicts FILE.json`: how far a review's statuses agree
with a reviewer's verdicts (agreement with its Wilson 95 % interval, over- and under-scoring,
the confusion matrix), as a table or as JSON. Input it cannot use ends the command with one
line, exit 2; a review that was never assessed, exit 1."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from flask.cli import with_appcontext

EXIT_NOT_ASSESSED = 1
EXIT_BAD_INPUT = 2
MOST_VERDICTS_BYTES = 1024 * 1024


def _fail(message: str, code: int = EXIT_BAD_INPUT):
    click.echo(f"furrow: {message}", err=True)
    sys.exit(code)


@click.group("registry")
def registry_cli() -> None:
    """Registry reviews."""


def read_file(path: str) -> str:
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(MOST_VERDICTS_BYTES + 1)
    except OSError as exc:
        _fail(f"cannot read {path}: {exc.strerror or exc}")
    if len(data) > MOST_VERDICTS_BYTES:
        _fail(f"{path} is larger than 1 MB; a verdicts file is much smaller.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        _fail(f"{path} is not UTF-8 text.")


def percent(share: float | None) -> str:
    return "—" if share is None else f"{share * 100:.1f} %"


def as_text(review_name: str, result: dict[str, Any]) -> str:
    from webapp.registry.evidence import COVERAGE_LABELS, Coverage
    from webapp.registry.target import VERDICTS

    low, high = result["interval_95"]
    lines = [
        f"{review_name}: {result['compared']} requirement(s) compared",
        f"Agreement: {result['agreed']} of {result['compared']} ({percent(result['agreement'])}),"
        f" Wilson 95 % interval {percent(low)} to {percent(high)}",
    ]
    lists = [
        ("Over-scored (covered, but the reviewer asked for changes)", result["over_scored"]),
        ("Under-scored (not covered, but the reviewer approved)", result["under_scored"]),
        ("Not applicable (left out)", result["not_applicable"]),
        ("Not compared (no verdict, or no status)", result["unjudged"]),
    ]
    lines += [f"{label}: {', '.join(ids) if ids else 'none'}" for label, ids in lists]
    header = ["Furrow's status \\ verdict", *VERDICTS.values()]
    rows = [
        [COVERAGE_LABELS[Coverage(status)], *(str(counts[v]) for v in VERDICTS)]
        for status, counts in result["confusion"].items()
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines += ["", "Confusion matrix (rows: Furrow's status; columns: the reviewer's verdict)"]
    for number, row in enumerate([header, *rows]):
        cells = [
            row[0].ljust(widths[0]),
            *(c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)),
        ]
        lines.append("  ".join(cells))
        if number == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


@registry_cli.command("evaluate")
@click.argument("review_id")
@click.option(
    "--verdicts",
    "verdicts_path",
    required=True,
    metavar="FILE.json",
    help="{requirement_id: verdict} or a list of {requirement_id, verdict}.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the evaluation as JSON.")
@with_appcontext
def evaluate_command(review_id: str, verdicts_path: str, as_json: bool) -> None:
    """Compare a review's statuses with a reviewer's verdicts."""
    from webapp.extensions import db
    from webapp.ids import record_id
    from webapp.registry.evaluation import VerdictsInvalid, evaluate, read_verdicts
    from webapp.registry.models import Review, ReviewStatus

    review_key = record_id(review_id)
    if review_key is None:
        _fail(f"{review_id!r} is not a review id (a whole number).")
    review = db.session.get(Review, review_key)
    if review is None:
        _fail(f"there is no review #{review_id}.")
    try:
        verdicts = read_verdicts(read_file(verdicts_path))
    except VerdictsInvalid as exc:
        _fail(f"{verdicts_path}: {exc.message}")
    statuses = {r.requirement_id: r.status for r in review.requirements if r.status}
    if review.status != ReviewStatus.assessed or not statuses:
        _fail(
            f"review #{review.id} ({review.name}) has not been assessed yet; run it first.",
            EXIT_NOT_ASSESSED,
        )
    unknown = sorted(set(verdicts) - {r.requirement_id for r in review.requirements})
    if unknown:
        _fail(f"{verdicts_path}: the review's checklist has no {', '.join(unknown[:10])}.")
    result = evaluate(statuses, verdicts).to_dict()
    if as_json:
        click.echo(json.dumps({"review_id": review.id, **result}, indent=2))
    else:
        click.echo(as_text(f"Review #{review.id} ({review.name})", result))


commands = (registry_cli,)

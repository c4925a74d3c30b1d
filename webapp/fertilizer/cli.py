"""`furrow fertilize recommend`: the seed's command line. Reads a crop profile file, prints a
plan; exit 2 for input it cannot use, 3 when no plan can be made. Needs no app or database."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from webapp.fertilizer.request import RequestInvalid, typed_number

EXIT_BAD_INPUT = 2
EXIT_NO_PLAN = 3


def _fail(message: str, code: int):
    click.echo(f"furrow: {message}", err=True)
    sys.exit(code)


def read_profile(path: str) -> Any:
    """The parsed JSON of a crop profile file; exits 2 with one line when it cannot be read."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        _fail(f"cannot read {path}: {reason}", EXIT_BAD_INPUT)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        _fail(f"{path} is not JSON: {exc}", EXIT_BAD_INPUT)


def _number(value: str | None, option: str) -> float | None:
    try:
        return typed_number(value)
    except ValueError:
        _fail(f"{option} must be a number, got {value!r}", EXIT_BAD_INPUT)


def _organic(value: str | None) -> dict[str, float] | None:
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",")]
    if len(parts) != 3:
        _fail(f"--organic takes N,P,K in g/m², e.g. 3,1,2; got {value!r}", EXIT_BAD_INPUT)
    return {e: _number(p, "--organic") for e, p in zip(("N", "P", "K"), parts, strict=True)}


@click.group("fertilize")
def fertilize_cli() -> None:
    """Fertilizer plans from crop profiles."""


@fertilize_cli.command("recommend")
@click.option("-c", "--crop-file", required=True, help="Crop profile JSON (`agrr crop` format).")
@click.option("-j", "--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@click.option("-o", "--output", help="Write to this file instead of standard output.")
@click.option("--target-yield", help="Target yield, kg/m².")
@click.option("--soil-p", help="Soil P test: RB209 index 0–4 or VDLUFA class A–E.")
@click.option("--soil-k", help="Soil K test: RB209 index 0, 1, 2-, 2+, 3, 4 or VDLUFA class A–E.")
@click.option("--soil-texture", help="Soil texture: sand|loam|silt|clay|peat.")
@click.option("--nmin", help="Soil mineral N, kg N/ha in 0–90 cm (DüV).")
@click.option("--sns-index", help="RB209 soil nitrogen supply index, 0–6.")
@click.option("--humus", help="Humus, % of the soil (DüV).")
@click.option("--previous-crop", help="Previous crop as the DüV's Tabelle 7 names it.")
@click.option("--organic-n-last-year", help="Organic N given to last year's crops, kg N/ha.")
@click.option("--organic", help="Organic N,P,K already applied, g/m² (e.g. 3,1,2).")
@click.option(
    "--region",
    help="Region: picks the method (Germany → DüV + VDLUFA; England, Wales, Northern Ireland →"
    " RB209; elsewhere → a published extension recommendation).",
)
@click.option("--growth-period", help="Growth period in days.")
@click.option(
    "--mean-daily-gdd",
    help="Mean daily heat sum at the site, °C·day per day: with the profile's stage GDD, the"
    " season's length.",
)
@click.option("--provider", help="offline (reference library) or openai [FURROW_PROVIDER].")
def recommend_command(
    crop_file: str,
    as_json: bool,
    output: str | None,
    target_yield: str | None,
    soil_p: str | None,
    soil_k: str | None,
    soil_texture: str | None,
    nmin: str | None,
    sns_index: str | None,
    humus: str | None,
    previous_crop: str | None,
    organic_n_last_year: str | None,
    organic: str | None,
    region: str | None,
    growth_period: str | None,
    mean_daily_gdd: str | None,
    provider: str | None,
) -> None:
    """Recommend N-P-K for a crop profile: totals, basal and topdress applications, sources."""
    from webapp.ai import ProviderUnavailable
    from webapp.fertilizer.gateways import gateway_for
    from webapp.fertilizer.interactor import NoRecommendation, recommend
    from webapp.fertilizer.report import plan_table
    from webapp.fertilizer.request import parse_profile

    profile = read_profile(crop_file)
    try:
        parse_profile(profile)
    except RequestInvalid as exc:
        _fail(f"{crop_file} is not a crop profile: {exc}", EXIT_BAD_INPUT)
    days = _number(growth_period, "--growth-period")
    sns = _number(sns_index, "--sns-index")
    document = {
        "crop_profile": profile,
        "target_yield": _number(target_yield, "--target-yield"),
        "soil_p": soil_p,
        "soil_k": soil_k,
        "soil_texture": soil_texture,
        "nmin": _number(nmin, "--nmin"),
        "sns_index": int(sns) if sns is not None and sns.is_integer() else sns,
        "humus_pct": _number(humus, "--humus"),
        "previous_crop": previous_crop,
        "organic_n_last_year": _number(organic_n_last_year, "--organic-n-last-year"),
        "region": region,
        "growth_period_days": int(days) if days is not None and days.is_integer() else days,
        "organic": _organic(organic),
        "mean_daily_gdd": _number(mean_daily_gdd, "--mean-daily-gdd"),
    }
    name = provider or os.environ.get("FURROW_PROVIDER") or "offline"
    try:
        gateway = gateway_for(name, _settings() if name == "openai" else None)
        result = recommend({k: v for k, v in document.items() if v is not None}, gateway)
    except RequestInvalid as exc:
        _fail(str(exc), EXIT_BAD_INPUT)
    except (NoRecommendation, ProviderUnavailable) as exc:
        _fail(str(exc), EXIT_NO_PLAN)
    if as_json:
        text = json.dumps(result.plan.to_dict(), ensure_ascii=False, indent=2) + "\n"
        for issue in result.issues:
            click.echo(f"furrow: {issue.severity}: {issue.message}", err=True)
    else:
        text = plan_table(result.plan, result.issues, result.gateway)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {output}: {exc.strerror or exc}", EXIT_BAD_INPUT)
    click.echo(f"wrote {output}", err=True)


def _settings():
    from webapp.config import ConfigError, load_settings

    try:
        return load_settings()
    except ConfigError as exc:
        _fail(f"configuration error: {exc}", EXIT_NO_PLAN)


# On the `furrow` group itself, not the app: it needs neither app nor database, and starts fast.
app_free_commands = (fertilize_cli,)
commands = ()

"""A plan as a readable table: elemental and oxide figures, per application, sources."""

from __future__ import annotations

from collections.abc import Sequence

from webapp.fertilizer.plan import K_PER_K2O, P_PER_P2O5, FertilizerPlan, Nutrients
from webapp.review.vocabulary import Confidence, Issue

COLUMNS = ("N", "P", "P2O5", "K", "K2O")


def _row(label: str, nutrients: Nutrients) -> str:
    values = {"N": nutrients.N, "P": nutrients.P, "K": nutrients.K, **nutrients.oxides}
    return f"  {label:<22}" + "".join(
        f"{'—':>9}" if values[c] is None else f"{values[c]:>9.2f}" for c in COLUMNS
    )


def plan_table(plan: FertilizerPlan, issues: Sequence[Issue] = (), gateway: str = "") -> str:
    lines = [
        f"Fertilizer plan for {plan.crop_name} ({plan.crop_id})",
        f"{Confidence.from_score(plan.confidence).value} confidence ({plan.confidence:.2f})"
        + (f" · {gateway}" if gateway else ""),
        *([f"Method: {plan.method}"] if plan.method else []),
        *(
            f"  {e}: {plan.basis_of(e)}"
            for e in ("N", "P", "K")
            if plan.method and plan.basis_of(e)
        ),
        "",
        f"  {'g/m²':<22}" + "".join(f"{c:>9}" for c in COLUMNS),
        _row("Totals", plan.totals),
    ]
    for application in plan.applications:
        hint = application.schedule_hint or ""
        lines += ["", f"  {application.type} × {application.count}: {hint}"]
        lines.append(_row("per application", application.per_application))
        if application.count > 1:
            lines.append(_row("all applications", application.nutrients))
    lines += [
        "",
        f"Oxides: P2O5 = P ÷ {P_PER_P2O5}, K2O = K ÷ {K_PER_K2O}. — : no cited figure.",
        "",
        "Sources:",
        *(f"  - {source}" for source in plan.sources),
    ]
    if plan.notes:
        lines += ["", "Notes:", *(f"  {line}" for line in plan.notes.splitlines())]
    if issues:
        lines += ["", "Checks:", *(f"  {i.severity}: {i.message}" for i in issues)]
    return "\n".join(lines) + "\n"

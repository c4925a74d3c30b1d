"""How far Furrow's statuses agree with a reviewer's verdicts: "covered" predicts approved,
any other status predicts that the requirement needs changes; not-applicable verdicts are left
out of the agreement. Over-scoring is Furrow calling covered what the reviewer sent back;
under-scoring is the reverse. Agreement comes with its Wilson 95 % interval."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from webapp.problems import Invalid
from webapp.registry.evidence import Coverage

VERDICTS = ("approved", "needs_changes", "not_applicable")
Z_95 = 1.959963984540054


class VerdictsInvalid(Invalid):
    code = "verdicts_invalid"


def read_verdicts(text: str) -> dict[str, str]:
    """{requirement_id: verdict} from JSON: that object, or a list of
    {"requirement_id", "verdict"}; every problem is named."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise VerdictsInvalid(
            f"The verdicts are not JSON: {exc.msg} (line {exc.lineno})."
        ) from None
    if isinstance(data, list):
        pairs = [
            (item.get("requirement_id"), item.get("verdict"))
            if isinstance(item, dict)
            else (None, None)
            for item in data
        ]
    elif isinstance(data, dict):
        pairs = list(data.items())
    else:
        raise VerdictsInvalid("Give an object {requirement_id: verdict} or a list of them.")
    verdicts, problems = {}, []
    for number, (requirement, verdict) in enumerate(pairs, start=1):
        if not isinstance(requirement, str) or not requirement:
            problems.append(f"Verdict {number} names no requirement.")
        elif verdict not in VERDICTS:
            problems.append(f"{requirement}: “{verdict}” is not one of {', '.join(VERDICTS)}.")
        else:
            verdicts[requirement] = verdict
    if problems:
        raise VerdictsInvalid("; ".join(problems[:10]))
    return verdicts


def wilson(agreed: int, total: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a proportion; (0, 1) when there is nothing to judge."""
    if total == 0:
        return 0.0, 1.0
    p = agreed / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Evaluation:
    compared: int = 0
    agreed: int = 0
    over: list[str] = field(default_factory=list)  # covered, but sent back
    under: list[str] = field(default_factory=list)  # not covered, but approved
    not_applicable: list[str] = field(default_factory=list)
    unjudged: list[str] = field(default_factory=list)  # no verdict, or no status
    matrix: dict[str, dict[str, int]] = field(default_factory=dict)  # status → verdict → count

    @property
    def agreement(self) -> float | None:
        return self.agreed / self.compared if self.compared else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.agreed, self.compared)

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "compared": self.compared,
            "agreed": self.agreed,
            "agreement": self.agreement,
            "interval_95": [round(low, 4), round(high, 4)],
            "over_scored": self.over,
            "under_scored": self.under,
            "not_applicable": self.not_applicable,
            "unjudged": self.unjudged,
            "confusion": self.matrix,
        }


def evaluate(statuses: Mapping[str, str], verdicts: Mapping[str, str]) -> Evaluation:
    """Furrow's status per requirement against the reviewer's verdict per requirement."""
    result = Evaluation(
        matrix={s.value: dict.fromkeys(VERDICTS, 0) for s in Coverage},
    )
    for requirement in sorted(set(statuses) | set(verdicts)):
        status, verdict = statuses.get(requirement), verdicts.get(requirement)
        if status not in result.matrix or verdict is None:
            result.unjudged.append(requirement)
            continue
        result.matrix[status][verdict] += 1
        if verdict == "not_applicable":
            result.not_applicable.append(requirement)
            continue
        result.compared += 1
        covered = status == Coverage.covered
        if covered == (verdict == "approved"):
            result.agreed += 1
        elif covered:
            result.over.append(requirement)
        else:
            result.under.append(requirement)
    return result

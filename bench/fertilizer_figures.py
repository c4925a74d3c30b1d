"""Fertilizer plan throughput and the command line's wall time.

- 1,000 crop profiles (the agrr tomato and every crop a method or published recommendation
  covers, named in four languages, in Bavaria, England and Florida, with and without Nmin,
  SNS index, soil texture, soil tests and organic inputs) through the recommend interactor with
  the reference gateway: plans per second.
- `furrow fertilize recommend --crop-file tomato_profile.json` as a new process: the first run
  and the median of the next ten, wall time.

Run from the repository root: `.venv/bin/python bench/fertilizer_figures.py`.
"""

from __future__ import annotations

import itertools
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fertilizer.profiles import TOMATO_FILE, load  # noqa: E402

PROFILES = 1000
CLI_RUNS = 10


def documents() -> list[dict]:
    """Every crop the library can plan somewhere, by each of its names, in the region where
    a method or published recommendation covers it, with that method's conditions."""
    from webapp.fertilizer.methods import dose_for
    from webapp.fertilizer.request import parse_request
    from webapp.reference.library import library

    regions = {
        "Bayern": [{}, {"nmin": 40, "soil_p": "C", "target_yield": 0.9}],
        "England": [{}, {"sns_index": 2, "soil_texture": "sand", "soil_p": "1", "soil_k": "2-"}],
        "Florida": [{}, {"soil_p": "low", "organic": {"N": 2.0, "P": 0.5, "K": 1.0}}],
    }
    named = [({"crop_profile": load(TOMATO_FILE), "region": "Florida"}, {})]
    for crop in library().crops:
        for region, conditions in regions.items():
            probe = {"crop_profile": {"crop": {"crop_id": crop.id, "name": crop.id}}}
            if dose_for(crop.id, parse_request({**probe, "region": region})) is None:
                continue
            for name in crop.names.values():
                document = {
                    "crop_profile": {"crop": {"crop_id": crop.id, "name": name}},
                    "region": region,
                }
                named += [(document, c) for c in conditions]
    pairs = itertools.cycle(named)
    return [{**d, **c} for d, c in itertools.islice(pairs, PROFILES)]


def plans_per_second() -> tuple[float, int]:
    from webapp.fertilizer.gateways.reference import ReferenceGateway
    from webapp.fertilizer.interactor import recommend

    gateway = ReferenceGateway()
    batch = documents()
    recommend(batch[0], gateway)  # the library loads once, outside the timing
    began = time.perf_counter()
    plans = [recommend(document, gateway) for document in batch]
    elapsed = time.perf_counter() - began
    return len(plans) / elapsed, len({p.plan.crop_name for p in plans})


def cli_seconds() -> list[float]:
    command = [str(ROOT / ".venv/bin/furrow"), "fertilize", "recommend", "-c", str(TOMATO_FILE)]
    times = []
    for _ in range(CLI_RUNS + 1):
        began = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        times.append(time.perf_counter() - began)
        assert done.stdout.startswith("Fertilizer plan for")
    return times


def main() -> None:
    rate, crops = plans_per_second()
    print(f"plans through the interactor: {rate:,.0f} plans/s ({PROFILES} profiles, {crops} names)")
    times = cli_seconds()
    print(f"CLI wall time, first run: {times[0]:.2f} s")
    print(f"CLI wall time, median of the next {CLI_RUNS}: {statistics.median(times[1:]):.2f} s")
    print(json.dumps({"plans_per_second": round(rate), "cli_first_s": round(times[0], 3)}))


if __name__ == "__main__":
    main()

"""Generated farm systems as large as a test or a benchmark needs: the size of a rotation is
its steps and their interventions, nothing else."""


def rotation(*per_step: int, values: bool = True, frequency: bool = False) -> dict:
    """A rotation of len(per_step) steps, each with that many interventions (IFT and fuel, and
    a frequency of 1 if asked)."""
    entries = [{"key": "ift", "value": 1.0, "reviewed": True}, {"key": "gnr", "value": 8}]
    if frequency:
        entries.append({"key": "frequence", "value": 1})
    return {
        "title": "Generated",
        "steps": [
            {
                "id": f"s{s}",
                "name": f"Blé {s}",
                "startDate": f"{2026 + s}-01-01T00:00:00.000Z",
                "endDate": f"{2026 + s}-12-31T00:00:00.000Z",
                "interventions": [
                    {
                        "id": f"s{s}-w{n}",
                        "name": f"Passage {n}",
                        "day": str(n % 365),
                        **({"values": entries} if values else {}),
                    }
                    for n in range(count)
                ],
            }
            for s, count in enumerate(per_step)
        ],
    }

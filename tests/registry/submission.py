"""A generated registry submission for the soil-carbon checklist (v1.2.2), with the answers a
careful reviewer reads in it: 16 real PDFs of 159 pages, and for each of the 23
requirements the status that reviewer gives (TRUTH), next to the documents that decide it.

The submission (Holloway Farm, Kent; project ID 123456Example23; start 1 April 2024):

- an outdated plan (version 1.0, a 2023 draft) saved under a file name that says "land tenure";
  it states a permanence period of 5 years, below the methodology's 10, and no other document
  states one (version 2.1 dropped the figure): only the methodology's figure shows it fails;
- the updated plan (version 2.1), made from the registry's template: each section keeps its
  heading and the template's prompt ("Describe the project boundary, including …"), then the
  proponent's answer; two sections (environmental impact, public comment) were never filled
  in and hold only the prompt and "[Insert …]" — the question restated is not an answer;
- the public copy of the updated plan: the same passages again (duplicates);
- 12 official copies of the land-registry titles, freehold, each held by joint proprietors:
  six by two trustees (MARGARET ANNE HOLLOWAY and DAVID JOHN PEARCE), six by a company and a
  person (HOLLOWAY FARMS LIMITED and MARGARET ANNE HOLLOWAY); the plan names the owner as the
  person, Margaret Holloway;
- the monitoring report for 2024-25: sampling results, the GHG figures (which add up),
  leakage of 3.2 % (below 10 %), and the credits: 6,800 issued, 1,020 to the buffer pool —
  15 % of the issuance, not the methodology's 20 % the plan states — and 1,410 pending
  issuance.

`documents()` gives name → PDF bytes; `evidence()` where each answer was written (document,
page, passage, the field values it states): the "careful reader" a scripted model answers
with. `blank_template()` is a registry project-plan template holding only the checklist's
headings and questions: nothing in it covers anything (`blank_truth()`).

The truths: "covered" when an answer is written and each value it states meets the
methodology's figure (the checklist's limits); "partial" when it is answered but a value
fails (REQ-013, REQ-018); "missing" when nothing answers it — a passage restating the
requirement's question, or "[Insert …]", is no answer (REQ-022, REQ-023); "needs_input" for
the manual requirement (REQ-016). `truth()` is what a careful reviewer (or a model reading as
one) should reach; `offline_truth()` what an offline review can honestly reach without a
person's entries: its finder never reads values, so a structured or cross-document
requirement is "needs_input" when a passage states its fields, else "missing".
"""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass, field
from functools import cache

from tests.library.files import pdf_with_text
from webapp.registry.checklist import ValidationType, bundled

LINES_PER_PAGE = 46
WIDTH = 92  # characters a line of 11 pt Helvetica holds on a letter page, about

PROJECT = "Holloway Farm Soil Carbon Project"
PROJECT_ID = "123456Example23"
START_DATE = "1 April 2024"  # day-first, as a British plan writes it
OWNER = "Margaret Holloway"
TRUSTEES = "MARGARET ANNE HOLLOWAY and DAVID JOHN PEARCE"
COMPANY_AND_PERSON_OWNER = "HOLLOWAY FARMS LIMITED and MARGARET ANNE HOLLOWAY"
ADDRESS = "Holloway Farm, Bethersden, Ashford, Kent TN26 3BX"

OUTDATED_PLAN = "Land tenure - Holloway Farm (2023 draft).pdf"
PLAN = "Holloway Farm project plan v2.1.pdf"
PUBLIC_PLAN = "Holloway Farm project plan v2.1 - public copy.pdf"
MONITORING = "Monitoring report 2024-25 - Holloway Farm.pdf"
TITLE_NUMBERS = [f"K8123{n:02d}" for n in range(1, 13)]
BLANK_TEMPLATE = "Registry project plan template.pdf"


def title_name(number: str) -> str:
    return f"Official copy of register of title {number}.pdf"


# The statuses a careful reviewer gives, by requirement, with why (documents named above).
COVERED, PARTIAL, MISSING, NEEDS_INPUT = "covered", "partial", "missing", "needs_input"
TRUTH: dict[str, tuple[str, str]] = {
    "REQ-001": (
        COVERED,
        "plan v2.1 §1 applies methodology v1.2.2 and the credit class's latest version",
    ),
    "REQ-002": (
        COVERED,
        "12 official copies (freehold, title absolute) and plan v2.1 §2: the "
        "owner Margaret Holloway is a joint proprietor of every title; 412.6 ha",
    ),
    "REQ-003": (
        COVERED,
        "plan v2.1 §3: Sentinel-2 composites and Google Earth imagery "
        "2013-2024, arable and ley since before 2014, no natural land converted",
    ),
    "REQ-004": (
        COVERED,
        "plan v2.1 §3 and Annex A: shapefile, maps, 398.2 ha eligible and "
        "14.4 ha ineligible delineated field by field",
    ),
    "REQ-005": (
        COVERED,
        "plan v2.1 §4 answers its prompt: SOC pool as sink, N2O, CH4 and "
        "fuel CO2 as sources, reservoirs",
    ),
    "REQ-006": (
        COVERED,
        "plan v2.1 §5: credits owned by Holloway Farms Limited, 85 % to "
        "the landowners, 15 % to the aggregator",
    ),
    "REQ-007": (
        COVERED,
        "plan v2.1 §6: project ID 123456Example23, start date 1 April 2024, "
        "justified (first practice change, within the registration window)",
    ),
    "REQ-008": (
        COVERED,
        "plan v2.1 §7: temperate grassland and arable, Wickham clay loam, "
        "temperate oceanic climate (Koppen Cfb)",
    ),
    "REQ-009": (
        COVERED,
        "plan v2.1 §7 and Annex B: farm records of every field 2019-2024, "
        "arable rotation with leys throughout",
    ),
    "REQ-010": (
        COVERED,
        "plan v2.1 §8: 10 years, 1 April 2024 to 31 March 2034, renewable "
        "(meets the credit class's 10 years)",
    ),
    "REQ-011": (COVERED, "plan v2.1 §9: the performance-based additionality test, with its result"),
    "REQ-012": (
        COVERED,
        "monitoring report §5: yields 3.2 % below the baseline, within the "
        "10 % threshold; leakage 0 tCO2e; figures add up",
    ),
    "REQ-013": (
        PARTIAL,
        "the only permanence period the submission states is plan v1.0's 5 years, "
        "below the methodology's 10 (plan v2.1 §9 speaks of permanence but states no "
        "period): answered, but the value fails; no other document disagrees with it",
    ),
    "REQ-014": (
        COVERED,
        "plan v2.1 §10: the laws that apply (NVZ rules, Farming Rules for "
        "Water, SSSI consent) and a signed attestation of compliance",
    ),
    "REQ-015": (
        COVERED,
        "plan v2.1 §11: disclosed: never applied to, listed or issued on "
        "another registry, no plans to",
    ),
    "REQ-016": (NEEDS_INPUT, "manual: a person judges it (plan v2.1 §12 states no deviation)"),
    "REQ-017": (
        COVERED,
        "plan v2.1 §13: indicators, methods, schedule, responsibilities; "
        "carried out in the monitoring report",
    ),
    "REQ-018": (
        PARTIAL,
        "plan v2.1 §14 states 20 %, but the monitoring report's issuance "
        "contributed 1,020 of 6,800 credits, 15 %: the value fails the 20 %",
    ),
    "REQ-019": (
        COVERED,
        "plan v2.1 §15.1: the negative impacts identified and how each is "
        "addressed with the stakeholders",
    ),
    "REQ-020": (
        COVERED,
        "plan v2.1 §15.2: no-net-harm, the mitigation plan and a grievance procedure",
    ),
    "REQ-021": (
        COVERED,
        "plan v2.1 §15.3: how the stakeholders were identified and "
        "consulted before implementation (2023)",
    ),
    "REQ-022": (
        MISSING,
        "plan v2.1 §15.4 holds only the template's prompt and '[Insert ...]': "
        "no assessment is said to have been undertaken, nothing answers it",
    ),
    "REQ-023": (
        MISSING,
        "plan v2.1 §15.5 holds only the template's prompt and '[Insert ...]'; "
        "the monitoring report repeats the prompt: the question restated is no answer",
    ),
}


def truth() -> dict[str, str]:
    """Each requirement's status as a careful reviewer gives it (a model reading as they do)."""
    return {rid: status for rid, (status, _why) in TRUTH.items()}


def offline_truth() -> dict[str, str]:
    """The statuses an offline review can honestly reach, without a person's entries: the
    offline finder reads passages, never values, so a structured or cross-document requirement
    is at best "needs_input" (a passage states its fields: a person must enter them) and
    "missing" when nothing states them; every other requirement as the careful reviewer's."""
    checklist = bundled()
    found = truth()
    for requirement in checklist.requirements:
        if requirement.validation_type in (
            ValidationType.structured_field,
            ValidationType.cross_document,
        ):
            stated = any(e.requirement_id == requirement.requirement_id for e in evidence())
            found[requirement.requirement_id] = NEEDS_INPUT if stated else MISSING
    return found


# The blank template: its manual requirement needs a person; nothing else is answered.
def blank_truth() -> dict[str, str]:
    return {
        r.requirement_id: NEEDS_INPUT if r.validation_type == ValidationType.manual else MISSING
        for r in bundled().requirements
    }


@dataclass(frozen=True)
class Evidence:
    """An answer as written: the document and page it is on, its text (the page's lines joined
    by spaces), and the values of the requirement's fields it states, as written."""

    document: str
    page: int
    requirement_id: str
    text: str
    fields: dict[str, str] = field(default_factory=dict)
    confidence: float = 0.9


class Writer:
    """A document laid out page by page: headings kept with what follows, paragraphs never
    split over two pages, a blank line after each; the answers recorded where they land."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.pages: list[list[str]] = [[]]
        self.evidence: list[Evidence] = []

    @property
    def page(self) -> int:
        return len(self.pages)

    def new_page(self) -> None:
        if self.pages[-1]:
            self.pages.append([])

    def _room(self, lines: int) -> None:
        if len(self.pages[-1]) + lines > LINES_PER_PAGE:
            self.new_page()

    def lines(self, *lines: str) -> None:
        for line in lines:
            self._room(1)
            if line or self.pages[-1]:  # a page never starts with a blank line
                self.pages[-1].append(line)

    def heading(self, text: str) -> None:
        self._room(8)  # a heading is not left at the foot of a page
        if self.pages[-1] and self.pages[-1][-1]:
            self.pages[-1].append("")
        self.pages[-1].append(text)

    def para(
        self,
        text: str,
        requirement_id: str | None = None,
        confidence: float = 0.9,
        **fields: str,
    ) -> None:
        wrapped = textwrap.wrap(" ".join(text.split()), WIDTH)
        self._room(len(wrapped) + 1)
        self.pages[-1] += [*wrapped, ""]
        if requirement_id:
            said = {word.strip(".,;:()") for word in " ".join(wrapped).split()}
            for name, value in fields.items():  # each word of a value is written
                assert set(value.split()) <= said, (name, value)
            # As a reader sees it: Helvetica's quote character reads back as a right quote.
            said_text = " ".join(wrapped).replace("'", "\u2019")
            self.evidence.append(
                Evidence(self.name, self.page, requirement_id, said_text, fields, confidence)
            )

    def pdf(self) -> bytes:
        assert all(page and page[0] for page in self.pages), "an empty page"
        return pdf_with_text(*self.pages)


TOTAL_HA = 412.6
ELIGIBLE_HA = 398.2
INELIGIBLE_HA = 14.4
INELIGIBLE = {"Home Field": 3.1, "Oak Shaw": 6.8, "Withy Bed Field": 4.5}  # the farmyard, woods
# The farm: 36 fields on 12 titles, their areas; a farmyard and woodland strips are ineligible.
FIELDS = [
    "Long Meadow",
    "Church Field",
    "Hop Garden",
    "Lower Brooks",
    "Upper Brooks",
    "Mill Field",
    "Great Ashes",
    "Little Ashes",
    "Pond Field",
    "Barn Piece",
    "Twelve Acres",
    "Fox Hole",
    "Gore Field",
    "Wheelwrights",
    "Stonebridge",
    "Cuckoo Field",
    "Pest House Field",
    "Dene Field",
    "Sandpit Field",
    "Beacon Field",
    "Horse Pasture",
    "Kiln Field",
    "Oak Shaw",
    "Home Field",
    "Rough Field",
    "Priest Field",
    "Withy Bed Field",
    "Coldharbour",
    "Hilly Field",
    "Brick Field",
    "Parsonage Field",
    "Well Field",
    "Lamb Field",
    "Chapel Field",
    "Bounds Field",
    "Cross Field",
]


@cache
def farm() -> list[tuple[str, str, float, bool]]:
    """(field, title number, hectares, eligible) for each field: the 33 eligible fields add up
    to 398.2 ha, the farmyard (Home Field), Oak Shaw woodland and the withy bed to 14.4 ha."""
    rng = random.Random(23)
    eligible = [name for name in FIELDS if name not in INELIGIBLE]
    areas = [rng.uniform(7.0, 16.0) for _ in eligible]
    tenths = [round(a * ELIGIBLE_HA * 10 / sum(areas)) for a in areas]
    tenths[-1] += round(ELIGIBLE_HA * 10) - sum(tenths)
    area = dict(zip(eligible, (t / 10 for t in tenths), strict=True)) | INELIGIBLE
    return [
        (name, TITLE_NUMBERS[n // 3], area[name], name not in INELIGIBLE)
        for n, name in enumerate(FIELDS)
    ]


CROPS = [
    "winter wheat",
    "winter barley",
    "oilseed rape",
    "spring beans",
    "spring oats",
    "two-year herbal ley",
    "winter wheat",
    "spring barley",
]

# The template's prompts, as the registry's project-plan template writes them.
PROMPTS = {
    "REQ-005": "Describe the project boundary, including relevant GHG sinks, sources, reservoirs, "
    "and other relevant ecological indicators (if applicable).",
    "REQ-015": "Disclose if the project has applied, been listed, registered, or issued credits "
    "under another registry, or if there are known plans to apply in the future.",
    "REQ-019": "Identify and address any negative environmental and socio-economic impacts of "
    "Project Activities and describe how local stakeholders were engaged to mitigate them.",
    "REQ-022": "Environmental Impact: Project Proponent must indicate if environmental impact "
    "assessments were undertaken and describe the process and findings.",
    "REQ-023": "Public comment: Specify if community public consultation was undertaken during "
    "the project implementation and how comments were addressed.",
}


def contents(*entries: tuple[str, int]) -> list[str]:
    return ["Contents", *(f"{title} ..... {page}" for title, page in entries)]


def plan(name: str, outdated: bool = False, public: bool = False) -> Writer:
    """A project plan: version 2.1 (or the outdated 1.0 draft), the public copy of 2.1 with
    a notice on its cover and the same passages."""
    w = Writer(name)
    version = "Version 1.0 (draft of 15 May 2023)" if outdated else "Version 2.1, 3 March 2025"
    w.lines(
        "Project Plan",
        PROJECT,
        f"Project ID: {PROJECT_ID}",
        version,
        "Prepared for Regen Registry under the Soil Organic Carbon Estimation in Regenerative",
        "Cropping and Managed Grassland Ecosystems methodology, version 1.2.2",
        "Project proponent: Holloway Farms Limited, " + ADDRESS,
        "",
    )
    if public:
        w.para(
            "PUBLIC COPY. This copy is published for the registry's public listing. It "
            "holds the same text as the version submitted for review."
        )
    if outdated:
        w.para(
            "This draft was prepared for the landowners' meeting of 22 May 2023 to agree the "
            "land tenure arrangements before the project was registered. It is kept on "
            "file with the land tenure papers."
        )
    w.para(
        "Prepared by Weald Soil Partnership LLP (the aggregator) with the landowners. "
        "Registry template: Project Plan template, soil carbon credit class, edition 2022."
    )
    w.new_page()
    w.lines(
        *contents(
            ("1 General", 3),
            ("2 Land tenure", 3),
            ("3 Project area", 4),
            ("4 Project boundary", 5),
            ("5 Project ownership", 5),
            ("6 Project start date", 6),
            ("7 Ecosystem type", 6),
            ("8 Crediting period", 7),
            ("9 GHG accounting", 7),
            ("10 Regulatory compliance", 8),
            ("11 Other registries", 8),
            ("12 Deviations", 9),
            ("13 Monitoring plan", 9),
            ("14 Risk management", 10),
            ("15 Safeguards", 10),
            ("Annexes", 12),
        )
    )
    w.new_page()

    w.heading("1 General")
    w.para(
        "Projects shall apply the latest version of the applicable credit class and methodology."
    )
    w.para(
        "This project plan applies the Soil Organic Carbon Estimation in Regenerative "
        "Cropping and Managed Grassland Ecosystems methodology, version 1.2.2, under the "
        "GHG Benefits in Managed Crop and Grassland Systems credit class, program guide "
        "version 1.1: the latest versions published by the registry on the date of this "
        "plan, and the project plan is kept up to date with them.",
        "REQ-001",
    )

    w.heading("2 Land tenure")
    w.para(
        f"The project land is owned by {OWNER} of {ADDRESS}. The farm covers 412.6 ha in "
        "twelve registered titles, all freehold with title absolute; official copies of "
        "the twelve registers are attached.",
        "REQ-002",
        0.95,
        owner_name=OWNER,
        area_hectares="412.6 ha",
        tenure_type="freehold",
    )
    w.para(
        "Six of the titles (K812301 to K812306) are held by Margaret Holloway and David "
        "Pearce as trustees of the Holloway 1998 Settlement; the other six (K812307 to "
        "K812312) by Holloway Farms Limited and Margaret Holloway jointly. No part of the "
        "land is let: there is no lease, and each proprietor has signed the landowner "
        "approval of the project for the whole crediting period (Annex F)."
    )

    w.heading("3 Project area")
    w.para(
        "The property was not converted from natural ecosystems in the ten years before the "
        "project start date. Timestamped Sentinel-2 colour composites and NDVI series for "
        "every growing season from 2016, and Google Earth historical imagery from 2013, "
        "show each field in arable cropping or temporary ley throughout 2013 to 2024; "
        "Oak Shaw woodland is unchanged over the same period. The imagery is attached with "
        "its capture dates.",
        "REQ-003",
    )
    w.para(
        "The geographic boundaries of the project area are given as GIS shapefiles "
        f"(EPSG:27700) and maps: {ELIGIBLE_HA} ha of eligible land in 33 fields is "
        f"delineated from {INELIGIBLE_HA} ha of ineligible land (the farmyard, Oak Shaw "
        "woodland and the withy bed), which is excluded from credit estimation. Annex A "
        "lists every field with its title, area and eligibility.",
        "REQ-004",
    )

    w.heading("4 Project boundary")
    w.para(PROMPTS["REQ-005"])
    w.para(
        "The project boundary is the eligible area of 398.2 ha to 30 cm depth. The GHG sink "
        "is the soil organic carbon pool. Sources within the boundary are nitrous oxide "
        "from fertiliser and manure, methane and nitrous oxide from grazing livestock on "
        "the leys, and carbon dioxide from farm machinery fuel; the reservoirs are soil "
        "organic carbon and above-ground biomass, the latter excluded as de minimis. "
        "Ecological indicators recorded are hedgerow length and earthworm counts.",
        "REQ-005",
    )

    w.heading("5 Project ownership")
    w.para(
        "The credits are owned by Holloway Farms Limited as project proponent. Under the "
        "aggregation agreement of 4 January 2024, 85 % of the proceeds of each sale are "
        "distributed to the landowners in proportion to the eligible area of their titles "
        "and 15 % to Weald Soil Partnership LLP for monitoring, verification and "
        "registry fees.",
        "REQ-006",
    )

    w.heading("6 Project start date")
    w.para(
        f"The project ID is {PROJECT_ID}. The project start date is {START_DATE}, the date "
        "the first changed practice (direct drilling with multi-species cover crops) began "
        "on the farm. It meets the eligibility requirements: it falls within the "
        "registration window the program guide allows, and no practice change was made "
        "before it. The project runs for the 10-year crediting period.",
        "REQ-007",
        0.95,
        project_id=PROJECT_ID,
        project_start_date=START_DATE,
    )

    w.heading("7 Ecosystem type")
    w.para(
        "The ecosystem managed is temperate managed cropland with grass and herbal leys. "
        "Vegetation is arable crops in rotation, two-year herbal leys (ryegrass, clovers, "
        "chicory, plantain) and hedgerows; the soils are slowly permeable clay loams of the "
        "Wickham and Denchworth series over Weald Clay; the climate zone is temperate "
        "oceanic (Koppen Cfb), with 720 mm of rainfall a year.",
        "REQ-008",
    )
    w.para(
        "The ecosystem type has not changed in the 5 years before the project start date: "
        "farm-management records of every field for 2019 to 2024 (Annex B) show the same "
        "arable rotation with temporary leys in each year, confirmed by the imagery above.",
        "REQ-009",
    )

    w.heading("8 Crediting period")
    w.para(
        f"The crediting period is 10 years, from {START_DATE} to 31 March 2034, with the "
        "option to renew under the credit class rules.",
        "REQ-010",
        0.95,
        crediting_period_years="10 years",
        crediting_period_start=START_DATE,
        crediting_period_end="31 March 2034",
    )

    w.heading("9 GHG accounting")
    w.para(
        "Additionality was demonstrated with the performance-based test of the credit "
        "class: the farm's practices before the project (conventional tillage, winter "
        "fallow) fall below the regional performance benchmark for cover-crop adoption, "
        "and the practices adopted exceed it.",
        "REQ-011",
    )
    w.para(
        "Leakage is assessed each year from the annual report of crop yields against the "
        "baseline yield of each crop; the monitoring report gives the result."
    )
    if outdated:
        w.para(
            "The project has a permanence period of 5 years from the end of each "
            "monitoring period, during which the soil organic carbon gains are maintained.",
            "REQ-013",
            0.95,
            permanence_period_years="5 years",
        )
    else:  # version 2.1 dropped the figure and states none
        w.para(
            "Permanence: the soil organic carbon gains are maintained after each monitoring "
            "period and secured by the buffer pool (section 14) and the landowner approval "
            "(Annex F)."
        )

    w.heading("10 Regulatory compliance")
    w.para(
        "The laws and regulations directly related to the project activities are the "
        "Nitrate Pollution Prevention Regulations 2015 (the farm is in a Nitrate "
        "Vulnerable Zone), the Reduction and Prevention of Agricultural Diffuse Pollution "
        "(England) Regulations 2018 (Farming Rules for Water) and the consent of Natural "
        "England for operations near the Brooks SSSI. The landowners attest that the "
        "project is materially compliant with all of them and with every legally binding "
        "mandate related to it; no violation has been recorded (attestation signed 20 "
        "February 2025).",
        "REQ-014",
    )

    w.heading("11 Registration on other registries")
    w.para(PROMPTS["REQ-015"])
    w.para(
        "The project has not applied to, been listed or registered with, or been issued "
        "credits under any other registry (including the UK Farm Soil Carbon Code and "
        "Verra), and the proponent has no plans to apply to another registry in the "
        "future.",
        "REQ-015",
    )

    w.heading("12 Project plan deviations")
    w.para(
        "No deviation from the methodology or the credit class is proposed in this plan.", "REQ-016"
    )

    w.heading("13 Monitoring plan")
    w.para(
        "Monitoring follows the methodology: soil organic carbon and bulk density are "
        "sampled to 30 cm at 432 stratified points every five years, the first round in "
        "spring 2024; management practices are recorded each season; remote sensing "
        "(Sentinel-2 NDVI) confirms cover each winter. Weald Soil Partnership LLP is "
        "responsible for sampling and the monitoring report, Holloway Farms Limited for the "
        "farm records, and the laboratory (NRM, Bracknell) for analysis.",
        "REQ-017",
    )

    w.heading("14 Risk management")
    w.para(
        "The buffer pool allocation is 20 % of each issuance, held by the registry against "
        "reversals; a buffer pool report is given with the final monitoring report.",
        "REQ-018",
        0.95,
        buffer_pool_percentage="20 %",
    )

    w.heading("15 Safeguards")
    w.heading("15.1 Environmental and socio-economic safeguards")
    w.para(PROMPTS["REQ-019"])
    w.para(
        "The negative impacts identified are lower yields in the first two years of direct "
        "drilling, the work lost by a local contractor who ploughed the farm, and more "
        "slug damage. They are addressed by a yield-loss reserve agreed with the "
        "landowners, the contractor's new contract for drilling and hedge laying, and "
        "integrated slug control agreed with the neighbouring farms.",
        "REQ-019",
    )
    w.heading("15.2 No net harm")
    w.para(
        "No net harm: the potential negative socio-economic and environmental impacts and "
        "the steps taken to mitigate them are recorded in the mitigation plan (Annex E). A "
        "grievance procedure is open to neighbours and staff: complaints go to the "
        "aggregator, are answered within 28 days and, if not resolved, referred to an "
        "independent mediator. No grievance has been raised.",
        "REQ-020",
    )
    w.heading("15.3 Local stakeholder consultation")
    w.para(
        "Local stakeholders were identified from the parish register, the farm's "
        "neighbours, its staff and contractors, the Kent Wildlife Trust and the Natural "
        "England adviser, and consulted before implementation at two meetings in Bethersden "
        "village hall (12 September and 7 November 2023) and by letter; the minutes are "
        "attached.",
        "REQ-021",
    )
    if not outdated:
        w.heading("15.4 Environmental impact")
        w.para(PROMPTS["REQ-022"])
        w.para("[Insert description of the process and findings, or state why none was undertaken]")
        w.heading("15.5 Public comment")
        w.para(PROMPTS["REQ-023"])
        w.para("[Insert details of the public consultation and how comments were addressed]")
    w.new_page()
    annexes(w, short=outdated)
    return w


def annexes(w: Writer, short: bool) -> None:
    """The plan's annexes: the field register, the farm records, the baseline by field."""
    w.heading("Annex A: Field register")
    w.lines("Field                      Title     Area (ha)  Eligible")
    for name, title, area, eligible in farm():
        w.lines(f"{name:26} {title}  {area:8.1f}   {'yes' if eligible else 'no (woodland)'}")
    w.lines(f"Total                                {TOTAL_HA:8.1f}", "")
    w.new_page()
    w.heading("Annex B: Farm management records 2019-2024")
    rng = random.Random(7)
    for n, (name, title, area, eligible) in enumerate(farm()):
        if not eligible:
            continue
        w.para(f"{name} ({title}, {area} ha).")
        w.lines(
            *(
                f"{year}: {CROPS[(n + year) % len(CROPS)]}, "
                f"{rng.choice(['ploughed', 'min-tilled', 'direct drilled'])}, "
                f"{rng.randrange(60, 210)} kg N/ha, yield "
                f"{rng.uniform(3.5, 9.5):.1f} t/ha"
                for year in range(2019, 2025)
            ),
            "",
        )
    w.new_page()
    last = 2022 if short else 2024  # the outdated draft is of May 2023
    weather(w, f"Annex G: Weather at Bethersden 2013-{last}", range(2013, last + 1))
    w.new_page()
    diary(w, f"Annex H: Field operations diary {last - 1}-{last - 2000}", last - 1)
    if short:
        return
    w.new_page()
    w.heading("Annex C: Baseline soil organic carbon by field")
    for name, _title, area, eligible in farm():
        if eligible:
            w.lines(
                f"{name}: {area} ha, baseline SOC {rng.uniform(1.6, 3.4):.2f} %, bulk "
                f"density {rng.uniform(1.15, 1.45):.2f} g/cm3, stock "
                f"{rng.uniform(45, 85):.1f} t C/ha (0-30 cm)"
            )
    w.new_page()
    w.heading("Annex D: Sampling design")
    for n, (name, _title, _area, eligible) in enumerate(farm()):
        if eligible:
            w.lines(
                f"{name}: strata by soil series and slope; points "
                + ", ".join(f"P{n * 12 + k + 1:03d}" for k in range(12))
            )
    w.new_page()
    w.heading("Annex E: Mitigation plan")
    for impact, step in [
        ("Lower yields in transition", "yield-loss reserve of GBP 40 per ha for two years"),
        ("Contractor's ploughing work lost", "new drilling and hedge-laying contract"),
        ("Slug damage after direct drilling", "integrated control, trapping, ferric phosphate"),
        ("Compaction on wet clay", "no traffic when soils are plastic; controlled traffic"),
        ("Herbicide before drilling", "cover crops terminated by roller-crimper where possible"),
    ]:
        w.para(f"{impact}: {step}.")
    w.heading("Annex F: Landowner approval")
    w.para(
        "Each proprietor of the twelve titles approves the project and the registration of "
        "its credits for the whole crediting period. Signed by Margaret Holloway, David "
        "Pearce, and for Holloway Farms Limited by its director Margaret Holloway."
    )


MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
OPERATIONS = [
    ("Sep", "direct drilled cover crop (oats, vetch, phacelia, 25 kg/ha)"),
    ("Oct", "direct drilled winter cereal, 160 seeds/m2"),
    ("Nov", "soil assessment, VESS score recorded"),
    ("Dec", "cover crop grazed by sheep, 2 days"),
    ("Jan", "hedge trimmed on rotation, one side"),
    ("Feb", "slug traps checked, threshold not reached"),
    ("Mar", "first nitrogen, ammonium nitrate 40 kg N/ha"),
    ("Mar", "cover crop rolled before spring drilling"),
    ("Apr", "second nitrogen, 60 kg N/ha; tramlines checked"),
    ("Apr", "herbal ley paddocks moved, 1-day grazing"),
    ("May", "fungicide at flag leaf where disease seen"),
    ("May", "earthworm count, 10 pits"),
    ("Jun", "crop walk with agronomist"),
    ("Jul", "grass weighed, paddock rest 35 days"),
    ("Aug", "harvest; straw chopped and left"),
    ("Aug", "yield mapped by combine, moisture 14.5 %"),
]


def weather(w: Writer, heading: str, years: range) -> None:
    """Monthly weather lines."""
    rng = random.Random(years.start)
    w.heading(heading)
    for year in years:
        for month in MONTHS:
            w.lines(
                f"{month} {year}: rainfall {rng.randrange(18, 130)} mm, mean temperature "
                f"{rng.uniform(3.0, 19.5):.1f} C, {rng.randrange(4, 21)} rain days"
            )


def diary(w: Writer, heading: str, season: int) -> None:
    """Each eligible field's operations of one season, dated day-first."""
    rng = random.Random(season)
    w.heading(heading)
    for name, title, _area, eligible in farm():
        if not eligible:
            continue
        w.lines(f"{name} ({title})")
        for month, operation in OPERATIONS:
            year = season if MONTHS.index(month) >= 8 else season + 1
            w.lines(f"  {rng.randrange(1, 28)} {month} {year}: {operation}")
        w.lines("")


def outdated_plan() -> Writer:
    return plan(OUTDATED_PLAN, outdated=True)


def updated_plan() -> Writer:
    return plan(PLAN)


def public_plan() -> Writer:
    return plan(PUBLIC_PLAN, public=True)


def title(number: str) -> Writer:
    """An official copy of a register of title: property, proprietorship and charges
    registers, freehold, held by joint proprietors (two trustees, or a company and a person)."""
    w = Writer(title_name(number))
    index = TITLE_NUMBERS.index(number)
    trustees = index < 6
    fields = [f for f in farm() if f[1] == number]
    edition = f"{3 + index:02d}.03.2022"
    w.lines(
        "Official copy of register of title",
        "",
        f"Title number {number}    Edition date {edition}",
        "",
        "This official copy shows the entries on the register of title on 12 FEB 2025 at",
        "10:41:07. This date must be quoted as the 'search from date' in any official search",
        "application based on this copy. The date at the beginning of an entry is the date",
        "on which the entry was made in the register. Issued on 12 February 2025.",
        "Under s.67 of the Land Registration Act 2002, this copy is admissible in evidence",
        "to the same extent as the original.",
        "",
        "This title is dealt with by HM Land Registry, Coventry Office.",
        "",
    )
    w.heading("A: Property Register")
    w.para("This register describes the land and estate comprised in the title.")
    w.lines("KENT : ASHFORD", "")
    names = " and ".join(f[0] for f in fields)
    w.para(
        f"1 ({edition}) The Freehold land shown edged with red on the plan of the above "
        f"title filed at the Registry and being land at {names}, Holloway Farm, Bethersden, "
        "Ashford.",
        "REQ-002",
        tenure_type="Freehold",
    )
    w.para(
        f"2 ({edition}) The land has the benefit of the rights granted by but is subject "
        "to the rights reserved by a Conveyance of the land in this title dated 2 June 1961 "
        "made between Edward Thomas Holloway (1) and The Bethersden Estate Company (2)."
    )
    w.new_page()
    w.heading("B: Proprietorship Register")
    w.para(
        "This register specifies the class of title and identifies the owner. It contains "
        "any entries that affect the right of disposal."
    )
    w.lines("Title absolute", "")
    written_owner = TRUSTEES if trustees else COMPANY_AND_PERSON_OWNER
    if trustees:
        w.para(
            f"1 ({edition}) PROPRIETOR: {TRUSTEES} of {ADDRESS}.",
            "REQ-002",
            owner_name=written_owner,
        )
        w.para(
            f"2 ({edition}) RESTRICTION: No disposition by a sole proprietor of the "
            "registered estate (except a trust corporation) under which capital money "
            "arises is to be registered unless authorised by an order of the court."
        )
    else:
        w.para(
            f"1 ({edition}) PROPRIETOR: HOLLOWAY FARMS LIMITED (Co. Regn. No. 04512877) "
            f"of {ADDRESS} and MARGARET ANNE HOLLOWAY of {ADDRESS}.",
            "REQ-002",
            owner_name=written_owner,
        )
        w.para(
            f"2 ({edition}) The price stated to have been paid on 14 March 2022 for the "
            "land in this title was GBP 1,150,000."
        )
    w.para(
        f"3 ({edition}) The Transfer to the proprietors contains a covenant to observe and "
        "perform the covenants referred to in the Charges Register and of indemnity in "
        "respect thereof."
    )
    w.new_page()
    w.heading("C: Charges Register")
    w.para("This register contains any charges and other matters that affect the land.")
    w.para(
        "1 (02.06.1961) A Conveyance of the land in this title dated 2 June 1961 made "
        "between Edward Thomas Holloway (1) and The Bethersden Estate Company (2) contains "
        "covenants not to use the land otherwise than for agriculture."
    )
    w.para(
        f"2 ({edition}) REGISTERED CHARGE dated 14 March 2022. Proprietor: LLOYDS BANK "
        "PLC (Co. Regn. No. 2065) of Agricultural Mortgage Team, PO Box 1000, BX1 1LT."
    )
    w.lines(
        "",
        "End of register",
        "",
        "This is a copy of the register of the title number set out immediately before",
        "the entries on the register. In case of difficulty in understanding the entries",
        "on the register, reference should be made to the title plan and any filed",
        "documents referred to in the register. (c) Crown copyright.",
    )
    return w


def monitoring_report() -> Writer:
    w = Writer(MONITORING)
    w.lines(
        "Monitoring Report 2024-25",
        PROJECT,
        f"Project ID: {PROJECT_ID}",
        f"Monitoring period: {START_DATE} to 31 March 2025",
        "Prepared by Weald Soil Partnership LLP, 30 June 2025",
        "",
    )
    w.para(
        "This report gives the first monitoring round of the project: the soil sampling "
        "of spring 2024 and 2025, the practices recorded on each field, the GHG accounting "
        "and the credits of the period."
    )
    w.new_page()
    w.lines(
        *contents(
            ("1 Summary", 3),
            ("2 Practices", 3),
            ("3 Sampling", 4),
            ("4 Results", 4),
            ("5 GHG accounting", 5),
            ("6 Credits and buffer", 5),
            ("7 Safeguards update", 6),
            ("Annex: sampling results", 7),
        )
    )
    w.new_page()
    w.heading("1 Summary")
    w.para(
        "All 33 eligible fields were managed under the project practices throughout the "
        "period: direct drilling, winter cover on every field, and herbal leys grazed "
        "rotationally."
    )
    w.heading("2 Practices")
    w.para(
        "Multi-species cover crops were established on 281 ha after harvest 2024 and "
        "grazed or rolled before spring drilling; 96 ha were in herbal ley."
    )
    w.heading("3 Sampling")
    w.para(
        "Soil organic carbon and bulk density were sampled to 30 cm at 432 stratified "
        "points, 12 in each eligible field, following the monitoring plan; samples were "
        "analysed by NRM, Bracknell, by dry combustion."
    )
    w.heading("4 Results")
    w.para(
        "Mean soil organic carbon stock rose from 64.2 to 66.9 t C/ha over the eligible "
        "area; the annex lists every point."
    )
    w.heading("5 GHG accounting")
    w.para(
        "Soil carbon stocks rose by 9,850 tCO2e. Project emissions were 620 tCO2e and "
        "leakage 0 tCO2e: average yields were 3.2 % below the baseline yield, within the "
        "10 % threshold, so no leakage deduction applies. Net reductions are 9,230 tCO2e.",
        "REQ-012",
        0.95,
        leakage_percentage="3.2 %",
        soc_change_tco2e="9,850 tCO2e",
        project_emissions_tco2e="620 tCO2e",
        leakage_tco2e="0 tCO2e",
        net_reductions_tco2e="9,230 tCO2e",
    )
    w.heading("6 Credits and buffer")
    w.para(
        "Of the net reductions, 6,800 credits were issued on 14 July 2025 and 1,020 "
        "credits were contributed to the buffer pool, a buffer contribution of 15 % of the "
        "issuance; 1,410 credits are pending issuance until the second sampling round is "
        "verified.",
        "REQ-018",
        0.95,
        buffer_pool_percentage="15 %",
        credits_issued="6,800 credits",
        buffer_credits="1,020 credits",
    )
    w.heading("7 Safeguards update")
    w.para(
        "No grievance was raised in the period. The slug control agreed with the "
        "neighbouring farms was applied on 44 ha."
    )
    w.para(PROMPTS["REQ-023"])
    w.para("[Insert details]")
    w.new_page()
    diary(w, "Annex: field operations diary 2024-25", 2024)
    w.new_page()
    w.heading("Annex: sampling results")
    w.lines("Point  Field                Depth    SOC %   BD g/cm3   Stock t C/ha")
    rng = random.Random(11)
    for n, (name, _title, _area, eligible) in enumerate(farm()):
        if not eligible:
            continue
        for k in range(12):
            soc, density = rng.uniform(1.5, 3.6), rng.uniform(1.12, 1.48)
            w.lines(
                f"P{n * 12 + k + 1:03d}   {name[:20]:20} 0-30 cm  {soc:5.2f}   "
                f"{density:5.2f}      {soc * density * 30:6.1f}"
            )
    return w


@cache
def writers() -> tuple[Writer, ...]:
    return (
        outdated_plan(),
        updated_plan(),
        public_plan(),
        *(title(n) for n in TITLE_NUMBERS),
        monitoring_report(),
    )


@cache
def documents() -> dict[str, bytes]:
    """The submission: file name → PDF."""
    return {w.name: w.pdf() for w in writers()}


def pages() -> dict[str, int]:
    return {w.name: len(w.pages) for w in writers()}


def evidence() -> list[Evidence]:
    """Every answer written into the submission, where it is."""
    return [e for w in writers() for e in w.evidence]


def blank_template() -> bytes:
    """The registry's project-plan template, not filled in: each requirement's category as a
    heading, its text and accepted evidence as the question, and a prompt to fill in."""
    w = Writer(BLANK_TEMPLATE)
    w.lines(
        "Project Plan Template",
        "Soil Organic Carbon Estimation methodology, version 1.2.2",
        "Project name: [Insert project name]",
        "Project ID: [Insert project ID]",
        "Project proponent: [Insert name and address]",
        "",
    )
    w.para("Complete every section. Delete the guidance in italics before submission.")
    w.new_page()
    category = None
    for n, requirement in enumerate(bundled().requirements, start=1):
        if requirement.category != category:
            category = requirement.category
            w.heading(f"{n} {category}")
        w.para(requirement.requirement_text + ".")
        w.para(f"Accepted evidence: {requirement.accepted_evidence}.")
        if requirement.category == "Project Boundary":
            w.para(PROMPTS["REQ-005"])
        w.para(
            f"Describe how the project meets this requirement. [Insert description and "
            f"attach the {requirement.accepted_evidence.split(',')[0].lower()}]"
        )
    return w.pdf()

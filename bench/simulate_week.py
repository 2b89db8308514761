"""A simulated week of use over examples/: ~300 questions from six people in Spanish and English (answerable
ones, ones about topics the corpus lacks, ones whose answer exists only in the other language), with the
feedback people would give, then the knowledge-gap report a docs owner reads on Monday.

    .venv/bin/python bench/simulate_week.py [--out bench/results/week]

Prints the report (as `sabio insights` does) and writes it as JSON. Deterministic (seeded).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chalicelib.access.keys import KeyPolicy  # noqa: E402
from chalicelib.composition import Container  # noqa: E402
from chalicelib.models.api import FeedbackRequest, RetrieveRequest  # noqa: E402
from chalicelib.settings import Settings  # noqa: E402
from chalicelib.usage.insights import gap_report  # noqa: E402
from sabio.cli.operating import render_insights  # noqa: E402

# what the corpus answers (a few ways of asking each)
ANSWERABLE = [
    ["¿Cuánto cuesta Faro?", "¿Qué precio tiene el plan Profesional de Faro?", "precios de Faro"],
    ["How much does Marea cost?", "What does the Marea Growth plan cost?", "Marea pricing"],
    ["¿Cómo funcionan las automatizaciones de Marea?", "¿Qué automatizaciones tiene Marea?"],
    ["How do I restore a database to a point in time?", "Can Ancla restore a single table?"],
    ["¿Qué hago si Faro no recibe correos?", "Faro no recibe emails, ¿qué reviso?"],
    ["¿Cuánto cuesta Ancla?", "¿Qué incluye el plan de Ancla?"],
    ["¿Cuánto tarda soporte en responder?", "¿Cuáles son las reglas del equipo de soporte?"],
    ["How do I create a ticket with the Python client?", "faro_client create_ticket"],
]
# what people ask and the documents do not hold: the report should list these first
MISSING = {
    "mobile app": [
        "Does Faro have a mobile app?",
        "Is there a Faro app for iPhone?",
        "¿Tiene Faro una aplicación móvil?",
        "Can I use Faro from my phone?",
        "¿Hay app de Faro para Android?",
    ],
    "salesforce": [
        "Can I connect Faro to Salesforce?",
        "Does Faro integrate with Salesforce?",
        "¿Faro se integra con Salesforce?",
        "Salesforce integration for Faro",
    ],
    "single sign-on": [
        "Does Marea support single sign-on with Okta?",
        "Can we log in to Marea with SAML SSO?",
        "¿Marea tiene inicio de sesión único (SSO)?",
    ],
    "sms campaigns": [
        "Can Marea send SMS campaigns?",
        "¿Marea permite campañas por SMS?",
        "Does Marea do text message marketing?",
    ],
}
# asked in one language, answered only in the other: the report should say "translate"
CROSS = [
    ["How long is the Faro free trial?", "Is there a free trial of Faro?"],
    ["What should I check when Faro stops receiving email?"],
    ["¿Cuánto cuesta Marea?", "¿Qué planes tiene Marea?"],
]
PEOPLE = ["ana", "luis", "marta", "john", "sarah", "pablo"]


def week(container: Container, rng: random.Random, start: float, n: int = 300) -> dict[str, int]:
    clock = [start]
    usage = container.usage
    usage.clock = lambda: clock[0]
    counts = {"asked": 0, "helpful": 0, "unhelpful": 0}
    kinds = [("answerable", 0.55), ("missing", 0.3), ("cross", 0.15)]
    for i in range(n):
        clock[0] = start + i * (7 * 86_400 / n)
        kind = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        pool = {"answerable": ANSWERABLE, "missing": list(MISSING.values()), "cross": CROSS}[kind]
        question = rng.choice(rng.choice(pool))
        who = KeyPolicy(name=rng.choice(PEOPLE), source_ids=None)
        answer = usage.answer(RetrieveRequest(query=question), who)
        counts["asked"] += 1
        if answer.query_id is None or rng.random() > 0.6:  # most people give no feedback
            continue
        helpful = kind != "missing" and answer.answered
        usage.feedback(FeedbackRequest(query_id=answer.query_id, helpful=helpful), who)
        counts["helpful" if helpful else "unhelpful"] += 1
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "week"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        container = Container(Settings(store_path=f"{tmp}/week.db"))
        container.ingestor().index_folder(ROOT / "examples", "examples")
        started = time.perf_counter()
        counts = week(container, random.Random(7), time.time() - 7 * 86_400)
        asked_s = time.perf_counter() - started
        report = gap_report(container.query_log, container.chunk_store, container.embedder.space, 7.5)
    print(render_insights(report, 7))
    print(f"\n({counts['asked']} questions in {asked_s:.1f} s; feedback: {counts})")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "insights.json").write_text(json.dumps(report.model_dump(), ensure_ascii=False, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

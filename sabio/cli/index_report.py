"""What an indexing run shows: progress bars on stderr, then its table and every trouble on stdout."""

from __future__ import annotations

from typing import Any


class IndexProgress:
    """rich progress bars on stderr, one per stage (reading, enriching, embedding), each with the time it has
    taken and an estimate of the time it still needs; stdout keeps the report."""

    LABELS = {"read": "reading", "enrich": "enriching", "embed": "embedding"}

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(
            TextColumn("{task.description:<9}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[detail]}"),
            console=Console(stderr=True),
        )
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> IndexProgress:
        self.progress.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.progress.stop()

    def __call__(self, stage: str, done: int, total: int, detail: str) -> None:
        if total <= 0:
            return
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(self.LABELS.get(stage, stage), total=total, detail="")
        self.progress.update(self.tasks[stage], completed=done, total=total, detail=detail[-40:])


def _report_table(rows: list[tuple[str, Any]]) -> Any:
    from rich import box
    from rich.table import Table

    table = Table(box=box.ASCII, show_header=False)  # ASCII: readable in any log or terminal
    table.add_column("what")
    table.add_column("count", justify="right")
    for name, value in rows:
        table.add_row(name, str(value))
    return table


def print_report(c: Any, report: Any, where: str) -> int:
    """The run's table, then every failure, note, skipped path and held deletion; exit 1 for the last two
    kinds of trouble (a failed document, a held deletion)."""
    from rich.console import Console

    rows = [
        ("added", report.added),
        ("updated", report.updated),
        ("unchanged", report.unchanged),
        ("deleted", report.deleted),
        *((("deletions held", len(report.held)),) if report.held else ()),
        ("failed", len(report.failed)),
        ("skipped", len(report.skipped)),
        ("chunks written", report.chunks_written),
        ("chunks embedded", report.chunks_embedded),
        ("chunks reused", report.chunks_reused),
        *((("readers changed", report.readers_changed),) if report.readers_changed else ()),
        ("seconds", f"{report.seconds:.1f}"),
    ]
    enriched = report.enriched
    rows += [
        (f"enriched {kind}", enriched.get(kind, 0))
        for kind in ("llm", "fallback", "heuristic")
        if enriched.get(kind) or (kind != "heuristic" and c.llm is not None)
    ]
    if c.llm is not None:
        rows += [
            ("llm requests", report.llm_requests),
            ("tokens in", report.tokens_in),
            ("tokens out", report.tokens_out),
            ("cost (USD)", f"{c.pricing.cost_usd(report.tokens_in, report.tokens_out):.4f}"),
        ]
    Console(highlight=False).print(_report_table(rows))
    for key, reason in report.failed:
        print(f"FAILED  {key}: {reason}")
    for key, note in report.notes:
        print(f"NOTE    {key}: {note}")
    for key, reason in report.skipped:
        print(f"skipped {key}: {reason}")
    if report.readers_for_no_one and restricted(c.settings):
        print(
            f"readers: {report.readers_for_no_one} document(s) name no readers and get the default, none: only "
            "a server without keys and keys that read all documents see them (sabio-read, .sabio-read or "
            "SABIO_DEFAULT_READERS=public: docs/permissions.md)"
        )
    if report.held:
        share = c.settings.ingest.delete_guard_share
        print(
            f"HELD    {len(report.held)} documents are gone from {where}, more than {share:.0%} of the "
            f"source: they stay searchable and are not deleted. If that is right, run again with "
            f"--confirm-deletions (e.g. {', '.join(report.held[:3])})"
        )
    from sabio.cli import notices

    said = notices.translation(c, notices.user_language())
    if said:
        print(f"note: {said}")
    return 1 if report.failed or report.held else 0


def restricted(settings: Any) -> bool:
    """Whether a server on these settings reads as someone (API keys, an identity provider, --as): without
    any, every document is read by every request, and who a document names as its readers changes nothing."""
    return settings.auth != "none" or bool(settings.identity.issuer) or bool(settings.as_user)

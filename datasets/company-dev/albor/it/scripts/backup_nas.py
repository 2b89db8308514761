"""Nightly copy of the engineering NAS to the backup server (cron, 01:30 every night)."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

SOURCE = "/mnt/nas/ingenieria/"
TARGET = "backup01.albor.local:/backups/ingenieria/"
KEEP_DAYS = 35  # daily snapshots kept on the backup server
LOG = Path("/var/log/backup_nas.log")


def run_backup(dry_run: bool = False) -> int:
    """rsync the NAS to today's snapshot folder, hard-linking unchanged files to yesterday's."""
    today = dt.date.today().isoformat()
    yesterday = (dt.date.today() - dt.timedelta(days=1)).isoformat()
    cmd = [
        "rsync",
        "-a",
        "--delete",
        f"--link-dest=../{yesterday}",
        SOURCE,
        f"{TARGET}{today}/",
    ]
    if dry_run:
        cmd.insert(1, "--dry-run")
    with LOG.open("a") as log:
        return subprocess.call(cmd, stdout=log, stderr=log)


def prune_old_snapshots(snapshots: list[str], today: dt.date) -> list[str]:
    """Snapshot folder names (ISO dates) older than KEEP_DAYS, to delete."""
    limit = today - dt.timedelta(days=KEEP_DAYS)
    return [s for s in snapshots if dt.date.fromisoformat(s) < limit]


if __name__ == "__main__":
    sys.exit(run_backup(dry_run="--dry-run" in sys.argv))

#!/usr/bin/env bash
# Nightly Ancla helpers: trigger a full backup and verify the latest restore drill.
set -euo pipefail

ANCLA_DB="${ANCLA_DB:-tienda}"

backup_now() {
  # A full backup on demand; the continuous WAL archive keeps running in the background.
  ancla-agent backup --db "$ANCLA_DB" --full --wait
}

verify_last_drill() {
  # Fails (exit 1) when the last weekly restore drill did not open the restored database.
  local status
  status="$(ancla-agent drills --db "$ANCLA_DB" --last --format status)"
  if [[ "$status" != "passed" ]]; then
    echo "restore drill for $ANCLA_DB: $status" >&2
    return 1
  fi
}

backup_now
verify_last_drill

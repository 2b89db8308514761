#!/usr/bin/env bash
# sync_lecturas.sh — nightly download of meter readings into the reporting database
# Aguas del Tajo Medio · Systems Department
#
# Runs every night at 02:15 from cron on bd-informes.atm.local:
#   15 2 * * *  /opt/atm/bin/sync_lecturas.sh >> /var/log/atm/lecturas/cron.log 2>&1
#
# Steps: download readings for each municipality prefix (config: sync.prefixes),
# load them into lecturas_dw, refresh the materialised views used by the SQL
# reports, and delete logs older than logging.retention_days.
# Exit codes: 0 ok · 2 config missing · 3 API error · 4 database load error

set -euo pipefail

CONFIG="${ATM_LECTURAS_CONFIG:-/opt/atm/etc/lecturas-api.yaml}"
PYTHON="/opt/atm/venv/bin/python"
LOG_DIR="/var/log/atm/lecturas"
RUN_ID="$(date +%Y%m%d-%H%M%S)"
LOCK="/var/lock/sync_lecturas.lock"

if [[ ! -f "$CONFIG" ]]; then
  echo "[$RUN_ID] config not found: $CONFIG" >&2
  exit 2
fi

# Only one run at a time: if the previous night's job is still running, give up.
exec 9>"$LOCK"
if ! flock -n 9; then
  echo "[$RUN_ID] previous run still active, skipping" >&2
  exit 0
fi

: "${ATM_LECTURAS_SECRET:?ATM_LECTURAS_SECRET not set}"
: "${ATM_DW_PASSWORD:?ATM_DW_PASSWORD not set}"

echo "[$RUN_ID] download start"
if ! "$PYTHON" -m atm_sync.download --config "$CONFIG" --run-id "$RUN_ID"; then
  echo "[$RUN_ID] API download failed" >&2
  exit 3
fi

echo "[$RUN_ID] load into lecturas_dw"
if ! "$PYTHON" -m atm_sync.load --config "$CONFIG" --run-id "$RUN_ID"; then
  echo "[$RUN_ID] database load failed" >&2
  exit 4
fi

# Refresh the views the reports depend on (v_consumo_facturable, mv_consumo_trimestral)
psql "service=lecturas_dw" -v ON_ERROR_STOP=1 \
  -c "REFRESH MATERIALIZED VIEW CONCURRENTLY mv_consumo_trimestral;" \
  -c "REFRESH MATERIALIZED VIEW CONCURRENTLY v_consumo_facturable;"

# Log retention (90 days, see logging.retention_days)
find "$LOG_DIR" -name '*.log' -mtime +90 -delete

echo "[$RUN_ID] done"

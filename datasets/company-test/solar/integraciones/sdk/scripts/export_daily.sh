#!/usr/bin/env bash
# export_daily.sh - export yesterday's energy totals of every plant to CSV.
#
# Intended for cron, e.g. every day at 02:15:
#   15 2 * * *  /opt/vatia-sdk/scripts/export_daily.sh >> /var/log/vatia/export.log 2>&1
#
# Reads settings from config.yaml (see config.example.yaml). Needs VATIA_API_KEY in the environment.
# Exit codes: 0 ok, 1 missing API key, 2 export failed for at least one plant.

set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CONFIG="${SCRIPT_DIR}/../config.yaml"
OUTPUT_DIR="${OUTPUT_DIR:-/var/lib/vatia/exports}"
RETENTION_DAYS="${RETENTION_DAYS:-90}"
YESTERDAY="$(date -d 'yesterday' +%F)"

if [[ -z "${VATIA_API_KEY:-}" ]]; then
  echo "ERROR: VATIA_API_KEY is not set" >&2
  exit 1
fi

mkdir -p "${OUTPUT_DIR}"

# The Python helper writes one CSV per plant: energy_<plant_id>_<date>.csv
python3 - "$CONFIG" "$YESTERDAY" "$OUTPUT_DIR" <<'PY' || exit 2
import csv, datetime as dt, os, sys
from vatia_cloud import VatiaCloudClient

config, day, out = sys.argv[1], dt.date.fromisoformat(sys.argv[2]), sys.argv[3]
client = VatiaCloudClient(api_key=os.environ["VATIA_API_KEY"], region=os.environ.get("VATIA_REGION", "eu"))
for plant in client.get_plants():
    rows = client.get_energy_series(plant["id"], day, day, interval="1d")
    path = os.path.join(out, f"energy_{plant['id']}_{day}.csv")
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["timestamp", "pv_kwh", "export_kwh", "import_kwh", "charge_kwh", "discharge_kwh"], delimiter=";")
        writer.writeheader()
        writer.writerows(rows)
PY

# Housekeeping: delete exports older than the retention period.
find "${OUTPUT_DIR}" -name 'energy_*.csv' -mtime +"${RETENTION_DAYS}" -delete

echo "$(date -Is) export for ${YESTERDAY} finished"

#!/usr/bin/env bash
# bulk_activate.sh - activate many fibre services from a CSV file.
#
# Usage:
#   ONDA_CLIENT_ID=... ONDA_CLIENT_SECRET=... ./bulk_activate.sh activations.csv [--dry-run] [--sandbox]
#
# CSV format (header required):
#   ont_serial,plan_code,customer_id,country,with_tv
#   HLXN4A7F19C2,FH-300,C-00231877,AR,false
#
# The script pauses 0.6 s between calls so it stays under the API limit of
# 120 requests per minute. Results are written to activations_YYYYmmdd_HHMM.log.
# Exit codes: 0 = all OK, 1 = usage/auth error, 2 = at least one activation failed.
#
# Owner: Systems Integration. Used after OLT migrations, when hundreds of
# services must be re-activated at once.

set -euo pipefail

CSV_FILE="${1:-}"
DRY_RUN=false
BASE_URL="https://api.ondaaustral.example"
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=true ;;
    --sandbox) BASE_URL="https://sandbox.api.ondaaustral.example" ;;
  esac
done

if [[ -z "$CSV_FILE" || ! -f "$CSV_FILE" ]]; then
  echo "usage: $0 file.csv [--dry-run] [--sandbox]" >&2
  exit 1
fi
: "${ONDA_CLIENT_ID:?ONDA_CLIENT_ID not set}"
: "${ONDA_CLIENT_SECRET:?ONDA_CLIENT_SECRET not set}"

LOG="activations_$(date +%Y%m%d_%H%M).log"
MAX_RETRIES=3
SLEEP_BETWEEN=0.6

get_token() {
  curl -sf -X POST "$BASE_URL/oauth/token" \
    -d grant_type=client_credentials \
    -d client_id="$ONDA_CLIENT_ID" \
    -d client_secret="$ONDA_CLIENT_SECRET" \
    -d scope=prov.write | jq -r '.access_token'
}

TOKEN="$(get_token)" || { echo "could not get token" >&2; exit 1; }

failed=0
ok=0
# skip the header line
tail -n +2 "$CSV_FILE" | while IFS=, read -r serial plan customer country with_tv; do
  body=$(printf '{"ont_serial":"%s","plan_code":"%s","customer_id":"%s","country":"%s","with_tv":%s}' \
         "$serial" "$plan" "$customer" "$country" "${with_tv:-false}")
  if $DRY_RUN; then
    echo "DRY-RUN $serial $plan $customer" | tee -a "$LOG"
    continue
  fi
  attempt=1
  while :; do
    http_code=$(curl -s -o /tmp/bulk_resp.json -w '%{http_code}' -X POST "$BASE_URL/prov/v2/services" \
      -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \
      -H "Idempotency-Key: bulk-$serial-$customer" -d "$body")
    code=$(jq -r '.code // empty' /tmp/bulk_resp.json)
    if [[ "$http_code" == "201" ]]; then
      echo "OK $serial $(jq -r .service_id /tmp/bulk_resp.json)" | tee -a "$LOG"
      ok=$((ok+1)); break
    elif [[ "$code" == "PRV-401" ]]; then
      TOKEN="$(get_token)"            # token expired mid-run: refresh and retry
    elif [[ "$code" == "PRV-503" && $attempt -lt $MAX_RETRIES ]]; then
      sleep $((attempt * 5))          # OLT unreachable: back off 5 s, 10 s
    else
      echo "FAIL $serial $code" | tee -a "$LOG"
      failed=$((failed+1)); break
    fi
    attempt=$((attempt+1))
  done
  sleep "$SLEEP_BETWEEN"
done

if grep -q '^FAIL' "$LOG" 2>/dev/null; then
  echo "Some activations failed, see $LOG" >&2
  exit 2
fi
echo "Done. Log: $LOG"

#!/usr/bin/env bash
# run_nightly_reports.sh - runs the partner SQL reports and publishes the CSV files.
#
# Scheduled by cron on reports-01 at 02:30 every night (Europe/Madrid):
#   30 2 * * * /opt/candela/reports/run_nightly_reports.sh >> /var/log/candela/reports.log 2>&1
#
# Owner: Partner Integrations / BI. Failures page the on-call BI engineer.
set -euo pipefail

REPORT_DIR="/srv/partner-reports/$(date +%F)"
SQL_FILE="/opt/candela/reports/claims_reports.sql"
DB_URL="${PARTNER_DM_URL:?PARTNER_DM_URL must be set}"
RETENTION_DAYS=90
NOTIFY="partners-data@mutuacandela.example"

mkdir -p "$REPORT_DIR"

# Split the SQL file into one query per report (R1..R5) and export each to CSV
csplit --quiet --prefix="$REPORT_DIR/q_" --suffix-format="%02d.sql" \
       "$SQL_FILE" '/^-- R[0-9]\./' '{*}'

for q in "$REPORT_DIR"/q_*.sql; do
  name=$(basename "$q" .sql)
  # skip the header chunk without a query
  grep -q "SELECT" "$q" || continue
  psql "$DB_URL" --no-psqlrc --quiet --csv -f "$q" > "$REPORT_DIR/${name}.csv"
done

# Remove report folders older than the retention period
find /srv/partner-reports -mindepth 1 -maxdepth 1 -type d -mtime +"$RETENTION_DAYS" -exec rm -rf {} +

echo "Partner reports generated in $REPORT_DIR" | mail -s "Nightly partner reports OK" "$NOTIFY"

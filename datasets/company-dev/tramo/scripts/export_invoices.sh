#!/usr/bin/env bash
# Export last month's invoices as one CSV for accounting (runs on the 2nd of each month from cron).
# Needs TRAMO_API_KEY with the "billing:read" scope.
set -euo pipefail
month="${1:-$(date -d 'last month' +%Y-%m)}"
out="invoices-${month}.csv"
curl -fsS -H "Authorization: Bearer ${TRAMO_API_KEY}" \
  "https://api.tramo.io/v2/invoices?month=${month}&format=csv" -o "${out}"
# accounting wants semicolons and a comma as the decimal separator
sed -i 's/,/;/g; s/\./,/g' "${out}"
echo "wrote ${out}"

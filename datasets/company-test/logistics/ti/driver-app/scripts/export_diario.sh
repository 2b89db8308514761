#!/usr/bin/env bash
# export_diario.sh — Exporta las lecturas de temperatura del día anterior a CSV
# y las deja en /srv/frigovia/exports para reporte_excursiones.py.
# Cron (servidor app-prd-02):  30 2 * * *  /opt/frigovia/bin/export_diario.sh
# Los archivos se conservan 400 días en el servidor; después se mueven al archivo frío.

set -euo pipefail

FECHA="${1:-$(date -d 'yesterday' +%Y%m%d)}"
DESTINO="/srv/frigovia/exports"
ARCHIVO="${DESTINO}/lecturas_${FECHA}.csv"
DB_HOST="${FV_DB_HOST:-db-prd-01}"

mkdir -p "$DESTINO"

psql -h "$DB_HOST" -U reportes -d driverapp -At -F',' -c "
  COPY (
    SELECT trip_id, unit_id, sitio, clase, ts, return_air, rango_min, rango_max
    FROM lecturas_temperatura
    WHERE ts::date = to_date('${FECHA}', 'YYYYMMDD')
    ORDER BY trip_id, ts
  ) TO STDOUT WITH CSV HEADER" > "$ARCHIVO"

FILAS=$(($(wc -l < "$ARCHIVO") - 1))
echo "$(date -Is) export ${FECHA}: ${FILAS} lecturas" >> /var/log/frigovia/export_diario.log

# Limpieza de exports de más de 400 días
find "$DESTINO" -name 'lecturas_*.csv' -mtime +400 -delete

#!/usr/bin/env bash
# run_sync.sh - Lanza hl7_sync.py desde cron.
# Entrada de crontab del usuario hl7sync en el servidor int-app-02:
#   */5 * * * * /opt/alba/hl7_sync/run_sync.sh
#
# Si existe el fichero /opt/alba/hl7_sync/PAUSA, el script no hace nada (útil durante
# las ventanas de mantenimiento de AlbaCare). Para reanudar, borre el fichero.

set -euo pipefail

APP_DIR=/opt/alba/hl7_sync
LOG_FILE=/var/log/alba/hl7_sync.log
LOCK_FILE=/tmp/hl7_sync.lock

cd "$APP_DIR"

if [[ -f "$APP_DIR/PAUSA" ]]; then
    echo "$(date '+%F %T') pausa activa, no se envían mensajes" >> "$LOG_FILE"
    exit 0
fi

# Evita dos ejecuciones a la vez si una tanda tarda más de 5 minutos
exec 9>"$LOCK_FILE"
if ! flock -n 9; then
    echo "$(date '+%F %T') ejecución anterior todavía en curso, se omite" >> "$LOG_FILE"
    exit 0
fi

# La contraseña de la base de datos se carga desde el fichero de entorno protegido (permisos 600)
source /etc/alba/hl7_sync.env

"$APP_DIR/venv/bin/python" hl7_sync.py >> "$LOG_FILE" 2>&1

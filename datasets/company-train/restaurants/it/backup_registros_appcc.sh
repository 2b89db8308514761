#!/usr/bin/env bash
# ---------------------------------------------------------------------------
# backup_registros_appcc.sh
# Copia cada noche los registros APPCC digitales del local al servidor de la
# central (NAS de Madrid). Se instala en el miniPC de la oficina de cada
# restaurante y lo lanza cron a las 03:30:
#
#   30 3 * * * /opt/brasa/backup_registros_appcc.sh >> /var/log/brasa/backup_appcc.log 2>&1
#
# Los registros se conservan 2 años (730 días), como exige el Plan APPCC.
# Si la copia falla dos noches seguidas, se envía un aviso a Sistemas.
# Mantenimiento: Sistemas (ext. 2188)
# ---------------------------------------------------------------------------
set -euo pipefail

LOCAL_ID="${LOCAL_ID:?Define LOCAL_ID, por ejemplo MAD-02}"
ORIGEN="/srv/brasa/registros_appcc"
DESTINO="backup@nas-central.brasaco.example:/volume1/appcc/${LOCAL_ID}"
RETENCION_DIAS=730
ESTADO="/var/lib/brasa/backup_fallos"
AVISO_A="sistemas@brasaco.example"

log() { echo "$(date '+%Y-%m-%d %H:%M:%S') [${LOCAL_ID}] $*"; }

# 1. Comprobar que existe la carpeta de registros
if [[ ! -d "$ORIGEN" ]]; then
    log "ERROR: no existe $ORIGEN"
    exit 1
fi

# 2. Copiar al NAS (solo ficheros nuevos o modificados)
if rsync -az --partial --timeout=300 "$ORIGEN"/ "$DESTINO"/; then
    log "Copia completada"
    echo 0 > "$ESTADO"
else
    fallos=$(( $(cat "$ESTADO" 2>/dev/null || echo 0) + 1 ))
    echo "$fallos" > "$ESTADO"
    log "ERROR: fallo de rsync (fallos consecutivos: $fallos)"
    if (( fallos >= 2 )); then
        echo "La copia de registros APPCC de ${LOCAL_ID} ha fallado ${fallos} noches seguidas." \
            | mail -s "[APPCC] Fallo de copia en ${LOCAL_ID}" "$AVISO_A"
    fi
    exit 1
fi

# 3. Borrar del miniPC los registros más antiguos que la retención
find "$ORIGEN" -type f -mtime +"$RETENCION_DIAS" -print -delete | while read -r f; do
    log "Eliminado por antigüedad: $f"
done

#!/usr/bin/env bash
# ---------------------------------------------------------------------------
# backup_expedientes.sh — Copia nocturna del repositorio documental de Quorum
#
# Se ejecuta desde cron en el servidor srv-qrm-mad-02 todos los días a las 02:30:
#   30 2 * * * /opt/rs/bin/backup_expedientes.sh >> /var/log/rs/backup.log 2>&1
#
# Destinos:
#   1. NAS local nas-mad-01 (copia incremental con rsync, retención de 35 días)
#   2. Copia semanal cifrada (domingos) al almacenamiento externo de Bogotá, nas-bog-01
#
# Si el script falla dos noches seguidas, Soporte TI abre incidencia de prioridad 2.
# Responsable: Marcos Villalba (ext. 2190).
# ---------------------------------------------------------------------------
set -euo pipefail

ORIGEN="/srv/quorum/docstore"
DESTINO_LOCAL="/mnt/nas-mad-01/backups/docstore"
DESTINO_REMOTO="backup@nas-bog-01.riberasalazar.example:/volume1/offsite/mad"
RETENCION_DIAS=35
FECHA="$(date +%Y-%m-%d)"
CLAVE_GPG="it-backup@riberasalazar.example"
AVISO="soporte@riberasalazar.example"

log() { echo "[$(date '+%F %T')] $*"; }

aviso_error() {
    log "ERROR en la copia del ${FECHA}"
    echo "La copia nocturna del ${FECHA} ha fallado en $(hostname). Revise /var/log/rs/backup.log" \
        | mail -s "[BACKUP] Fallo copia expedientes ${FECHA}" "${AVISO}"
}
trap aviso_error ERR

log "Inicio de copia incremental a ${DESTINO_LOCAL}/${FECHA}"
ULTIMA="$(ls -1d "${DESTINO_LOCAL}"/20* 2>/dev/null | tail -n 1 || true)"
rsync -a --delete ${ULTIMA:+--link-dest="${ULTIMA}"} "${ORIGEN}/" "${DESTINO_LOCAL}/${FECHA}/"

log "Borrando copias locales de más de ${RETENCION_DIAS} días"
find "${DESTINO_LOCAL}" -maxdepth 1 -type d -name '20*' -mtime +"${RETENCION_DIAS}" -exec rm -rf {} +

# Copia externa cifrada solo los domingos (date +%u = 7)
if [[ "$(date +%u)" == "7" ]]; then
    log "Domingo: generando copia cifrada para ${DESTINO_REMOTO}"
    tar -C "${DESTINO_LOCAL}" -cf - "${FECHA}" \
        | gpg --encrypt --recipient "${CLAVE_GPG}" \
        | ssh backup@nas-bog-01.riberasalazar.example "cat > /volume1/offsite/mad/docstore_${FECHA}.tar.gpg"
    log "Copia externa terminada"
fi

log "Copia terminada correctamente"

"""
hl7_sync.py - Sends pending ADT events from the Alba staging database to AlbaCare (Meridian Interface Engine).

Owner: Alba IT - Systems Integration team (integracion@redhospitalariaalba.es)
Runs every 5 minutes from run_sync.sh (cron). See README.md in this folder.

Flow:
    1. read pending rows from the table adt_outbox (see schema.sql)
    2. build an HL7 v2.5.1 ADT message for each row
    3. send it over MLLP to MIE and wait for the ACK
    4. store the result in hl7_message_log and mark the row as SENT, ERROR or RETRY
"""

import logging
import socket
import time
import uuid
import warnings
from datetime import datetime

import psycopg2
import yaml

__version__ = "2.3.1"

log = logging.getLogger("hl7_sync")

# MLLP framing characters
START_BLOCK = b"\x0b"
END_BLOCK = b"\x1c\x0d"

# Error codes that may succeed if we try again later (see vendor page "Interface Error Codes").
RETRYABLE_CODES = {"TO-900", "SY-950"}

# Error codes that need a person to fix data or configuration. The row goes to ERROR
# and an e-mail is sent to the on-call integration analyst.
ALERT_CODES = {"AR-301", "AR-305", "AR-340", "AR-360", "AE-210"}

MAX_RETRIES = 5
BACKOFF_BASE_SECONDS = 4
BATCH_SIZE = 200


def load_config(path="config.yaml"):
    """Load the YAML configuration and return it as a dict."""
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def new_control_id(site_code):
    """Return a new message control ID (MSH-10), e.g. 'HAS-20250318-1f3a9c'.

    A fresh ID must be generated for every new message; reusing one makes MIE answer AE-204.
    """
    return f"{site_code}-{datetime.now():%Y%m%d}-{uuid.uuid4().hex[:6]}"


def map_allergy_code(local_code, mapping):
    """Translate a local allergy code into the AlbaCare allergy code.

    `mapping` is the dict loaded from mapeo-alergias.csv. Returns None when the code is not mapped;
    the caller must then skip the AL1 segment and record a warning, otherwise MIE answers AE-250.
    """
    return mapping.get(local_code.strip().upper())


def build_adt_message(event, site_code, facility_code):
    """Build an HL7 v2.5.1 ADT message (A01 admit, A03 discharge, A04 register, A08 update)."""
    now = datetime.now().strftime("%Y%m%d%H%M%S")
    control_id = new_control_id(site_code)
    segments = [
        f"MSH|^~\\&|ALBA_ADT|{facility_code}|MIE|ALBACARE|{now}||ADT^{event['trigger']}|{control_id}|P|2.5.1|||||||UNICODE UTF-8",
        f"EVN|{event['trigger']}|{now}",
        f"PID|1||{event['mrn']}^^^{site_code}^MR||{event['surname']}^{event['given_name']}||{event['birth_date']}|{event['sex']}",
        f"PV1|1|{event['patient_class']}|{event.get('location', '')}",
    ]
    return "\r".join(segments) + "\r", control_id


def send_mllp(message, host, port, timeout_seconds):
    """Send one message over MLLP and return the raw ACK as text.

    Raises socket.timeout if MIE does not answer within timeout_seconds; the caller treats that as TO-900.
    """
    with socket.create_connection((host, port), timeout=timeout_seconds) as sock:
        sock.sendall(START_BLOCK + message.encode("utf-8") + END_BLOCK)
        data = b""
        while not data.endswith(END_BLOCK):
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    return data.strip(START_BLOCK + END_BLOCK).decode("utf-8")


def parse_ack(ack_text):
    """Return (status, error_code) from an ACK message.

    status is 'AA' (accepted), 'AE' or 'AR'. error_code is the code in ERR-3 (for example 'AE-201') or None.
    """
    status, error_code = None, None
    for segment in ack_text.split("\r"):
        fields = segment.split("|")
        if fields[0] == "MSA":
            status = fields[1]
        elif fields[0] == "ERR" and len(fields) > 3:
            error_code = fields[3].split("^")[0] or None
    return status, error_code


def send_adt_message(event, cfg):
    """Send one ADT event to MIE, retrying temporary errors.

    Retries only the codes in RETRYABLE_CODES, up to MAX_RETRIES times, waiting
    BACKOFF_BASE_SECONDS * 2**attempt seconds between attempts (4, 8, 16, 32, 64 s).
    Returns a dict with keys status, error_code, control_id and attempts.
    """
    site = cfg["sites"][event["site"]]
    mie = cfg["mie"]
    attempt = 0
    while True:
        message, control_id = build_adt_message(event, event["site"], site["facility_code"])
        try:
            ack = send_mllp(message, mie["host"], mie["port"], mie["ack_timeout_seconds"])
            status, error_code = parse_ack(ack)
        except socket.timeout:
            status, error_code = "AE", "TO-900"
        if status == "AA":
            return {"status": "SENT", "error_code": None, "control_id": control_id, "attempts": attempt + 1}
        if error_code in RETRYABLE_CODES and attempt < MAX_RETRIES:
            wait = BACKOFF_BASE_SECONDS * 2 ** attempt
            log.warning("%s on %s, retrying in %s s", error_code, control_id, wait)
            time.sleep(wait)
            attempt += 1
            continue
        return {"status": "ERROR", "error_code": error_code, "control_id": control_id, "attempts": attempt + 1}


def push_patient(event, cfg):
    """Deprecated since 2.0.0: use send_adt_message() instead.

    Kept only for the old bed-management scripts in Santiago, which still call it.
    It will be removed in version 3.0.0 of this script.
    """
    warnings.warn("push_patient() is deprecated; use send_adt_message()", DeprecationWarning, stacklevel=2)
    return send_adt_message(event, cfg)


def sync_pending_events(conn, cfg):
    """Process up to BATCH_SIZE pending rows of adt_outbox and write the results to hl7_message_log."""
    with conn.cursor() as cur:
        cur.execute(
            "SELECT event_id, site, trigger, mrn, surname, given_name, birth_date, sex, patient_class, location "
            "FROM adt_outbox WHERE status IN ('PENDING', 'RETRY') ORDER BY created_at LIMIT %s",
            (BATCH_SIZE,),
        )
        columns = [c[0] for c in cur.description]
        rows = [dict(zip(columns, r)) for r in cur.fetchall()]
    for event in rows:
        result = send_adt_message(event, cfg)
        with conn.cursor() as cur:
            cur.execute(
                "INSERT INTO hl7_message_log (event_id, control_id, status, error_code, attempts) VALUES (%s, %s, %s, %s, %s)",
                (event["event_id"], result["control_id"], result["status"], result["error_code"], result["attempts"]),
            )
            cur.execute("UPDATE adt_outbox SET status = %s WHERE event_id = %s", (result["status"], event["event_id"]))
        conn.commit()
        if result["error_code"] in ALERT_CODES:
            log.error("Event %s needs manual review: %s", event["event_id"], result["error_code"])
    return len(rows)


def main():
    cfg = load_config()
    logging.basicConfig(level=cfg.get("log_level", "INFO"))
    conn = psycopg2.connect(**cfg["database"])
    try:
        processed = sync_pending_events(conn, cfg)
        log.info("hl7_sync %s processed %d events", __version__, processed)
    finally:
        conn.close()


if __name__ == "__main__":
    main()

-- schema.sql - Staging tables used by hl7_sync.py
-- Database: alba_staging (PostgreSQL 15)
-- Owner: Alba IT - Systems Integration

-- Events produced by the admissions system and waiting to be sent to AlbaCare.
CREATE TABLE IF NOT EXISTS adt_outbox (
    event_id       BIGSERIAL PRIMARY KEY,
    site           CHAR(3)      NOT NULL CHECK (site IN ('HAS', 'CAS')),
    trigger        CHAR(3)      NOT NULL CHECK (trigger IN ('A01', 'A03', 'A04', 'A08')),
    mrn            VARCHAR(20)  NOT NULL,
    surname        VARCHAR(100) NOT NULL,
    given_name     VARCHAR(100) NOT NULL,
    birth_date     CHAR(8)      NOT NULL,          -- YYYYMMDD
    sex            CHAR(1)      NOT NULL CHECK (sex IN ('F', 'M', 'O', 'U')),
    patient_class  CHAR(1)      NOT NULL,          -- I inpatient, O outpatient, E emergency
    location       VARCHAR(40),
    status         VARCHAR(10)  NOT NULL DEFAULT 'PENDING'
                   CHECK (status IN ('PENDING', 'RETRY', 'SENT', 'ERROR')),
    created_at     TIMESTAMPTZ  NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS idx_adt_outbox_status ON adt_outbox (status, created_at);

-- One row per attempt sequence sent to the Meridian Interface Engine.
CREATE TABLE IF NOT EXISTS hl7_message_log (
    log_id      BIGSERIAL PRIMARY KEY,
    event_id    BIGINT       NOT NULL REFERENCES adt_outbox (event_id),
    control_id  VARCHAR(40)  NOT NULL,
    status      VARCHAR(10)  NOT NULL,
    error_code  VARCHAR(10),                       -- e.g. AE-201, TO-900; NULL when accepted
    attempts    SMALLINT     NOT NULL DEFAULT 1,
    sent_at     TIMESTAMPTZ  NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS idx_hl7_log_error ON hl7_message_log (error_code, sent_at);

-- Daily error summary used by the integration dashboard.
CREATE OR REPLACE VIEW v_hl7_errors_daily AS
SELECT date_trunc('day', sent_at) AS day,
       error_code,
       count(*)                   AS messages
FROM hl7_message_log
WHERE status = 'ERROR'
GROUP BY 1, 2
ORDER BY 1 DESC, 3 DESC;

-- Nightly purge (retention is configured in config.yaml: message_log_days).
-- DELETE FROM hl7_message_log WHERE sent_at < now() - interval '180 days';

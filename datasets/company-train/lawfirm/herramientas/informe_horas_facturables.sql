-- =====================================================================
-- informe_horas_facturables.sql
-- Informe mensual de horas facturables y tasa de realización por abogado.
-- Base de datos: réplica de lectura de Quorum (esquema qrm_reporting), PostgreSQL 15.
-- Autor: Administración Madrid / Soporte TI. Última revisión: 2025-02-04.
--
-- Definiciones usadas por el Comité de Facturación:
--   * Horas facturables  = horas enviadas (status 'submitted' o 'billed') en asuntos
--                          con tipo de facturación distinto de 'NB' (no facturable).
--   * Tasa de realización = importe facturado / (horas facturables x tarifa estándar).
--   * Objetivo de realización del despacho: 88 %. Por debajo del 75 % el socio
--     responsable debe justificar la desviación en la reunión mensual.
--
-- Parámetros (psql): :mes_inicio (fecha del día 1 del mes), :oficina ('MAD' o 'BOG').
-- Ejemplo: psql -v mes_inicio="'2025-03-01'" -v oficina="'MAD'" -f informe_horas_facturables.sql
-- =====================================================================

WITH periodo AS (
    SELECT :mes_inicio::date                                   AS desde,
           (:mes_inicio::date + INTERVAL '1 month')::date      AS hasta
),
horas AS (
    SELECT te.fee_earner_id,
           SUM(te.hours)                                       AS horas_facturables,
           SUM(te.hours * r.standard_rate)                     AS valor_estandar
    FROM qrm_reporting.time_entries te
    JOIN qrm_reporting.matters m   ON m.id = te.matter_id
    JOIN qrm_reporting.rates r     ON r.fee_earner_id = te.fee_earner_id
                                  AND te.entry_date BETWEEN r.valid_from AND r.valid_to
    CROSS JOIN periodo p
    WHERE te.entry_date >= p.desde
      AND te.entry_date <  p.hasta
      AND te.status IN ('submitted', 'billed')
      AND m.billing_type <> 'NB'
      AND m.office_code = :oficina
    GROUP BY te.fee_earner_id
),
facturado AS (
    SELECT il.fee_earner_id,
           SUM(il.amount)                                      AS importe_facturado,
           SUM(CASE WHEN il.write_down_pct > 10 THEN 1 ELSE 0 END) AS lineas_descuento_alto
    FROM qrm_reporting.invoice_lines il
    JOIN qrm_reporting.invoices i ON i.id = il.invoice_id
    CROSS JOIN periodo p
    WHERE i.invoice_date >= p.desde
      AND i.invoice_date <  p.hasta
      AND i.office_code = :oficina
      AND i.status <> 'cancelled'
    GROUP BY il.fee_earner_id
)
SELECT fe.full_name                                            AS abogado,
       fe.grade                                                AS categoria,
       ROUND(h.horas_facturables, 1)                           AS horas_facturables,
       ROUND(COALESCE(f.importe_facturado, 0), 2)              AS importe_facturado,
       ROUND(100.0 * COALESCE(f.importe_facturado, 0)
             / NULLIF(h.valor_estandar, 0), 1)                 AS realizacion_pct,
       CASE
           WHEN COALESCE(f.importe_facturado, 0) / NULLIF(h.valor_estandar, 0) < 0.75
               THEN 'JUSTIFICAR'
           WHEN COALESCE(f.importe_facturado, 0) / NULLIF(h.valor_estandar, 0) < 0.88
               THEN 'POR DEBAJO DEL OBJETIVO'
           ELSE 'OK'
       END                                                     AS semaforo,
       COALESCE(f.lineas_descuento_alto, 0)                    AS lineas_descuento_mayor_10
FROM horas h
JOIN qrm_reporting.fee_earners fe ON fe.id = h.fee_earner_id
LEFT JOIN facturado f            ON f.fee_earner_id = h.fee_earner_id
WHERE fe.active
ORDER BY realizacion_pct ASC NULLS FIRST, abogado;

-- Nota: las líneas con descuento superior al 10 % deben tener la aprobación del
-- Comité de Facturación registrada en Quorum (véase la política de facturación).

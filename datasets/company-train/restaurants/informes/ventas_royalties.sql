-- =====================================================================
-- ventas_royalties.sql
-- Cálculo mensual de ventas netas, royalties y canon de marketing por local.
-- Base de datos: almacén de datos de la central (PostgreSQL 15), esquema "tw"
-- cargado cada noche desde la API de TillWave (cierres Z).
-- Responsable: Administración y Finanzas (finanzas@brasaco.example)
-- Última modificación: 2025-01-09 (se añade el royalty mínimo)
-- =====================================================================

-- Porcentajes por país según las condiciones económicas de la franquicia.
-- Los locales propios (franquiciado = 'PROPIO') no pagan royalties pero se calculan para el reporting.
CREATE TABLE IF NOT EXISTS tw.tarifas_franquicia (
    pais               CHAR(2) PRIMARY KEY,
    moneda             CHAR(3) NOT NULL,
    pct_royalty        NUMERIC(5,2) NOT NULL,
    pct_marketing      NUMERIC(5,2) NOT NULL,
    royalty_minimo     NUMERIC(12,2) NOT NULL   -- importe mínimo mensual a partir del mes 13 de actividad
);

INSERT INTO tw.tarifas_franquicia VALUES
    ('ES', 'EUR', 6.00, 2.00, 1800.00),
    ('MX', 'MXN', 5.50, 2.00, 32000.00),
    ('US', 'USD', 6.50, 2.50, 2200.00)
ON CONFLICT (pais) DO NOTHING;

-- Ventas netas = ventas sin impuestos, sin propinas y descontadas las invitaciones (motivo de anulación 'INV').
-- Los tickets anulados por duplicado ('DUP') o error ('ERR') no cuentan.
CREATE OR REPLACE VIEW tw.v_ventas_netas_mensuales AS
SELECT
    t.local_id,
    l.pais,
    date_trunc('month', t.dia_negocio)::date              AS mes,
    SUM(t.importe_total - t.impuestos - t.propinas)        AS ventas_brutas_sin_impuestos,
    SUM(CASE WHEN t.motivo_anulacion = 'INV' THEN t.importe_total - t.impuestos ELSE 0 END) AS invitaciones,
    SUM(t.importe_total - t.impuestos - t.propinas)
      - SUM(CASE WHEN t.motivo_anulacion = 'INV' THEN t.importe_total - t.impuestos ELSE 0 END) AS ventas_netas
FROM tw.tickets t
JOIN tw.locales l ON l.local_id = t.local_id
WHERE t.motivo_anulacion IS NULL OR t.motivo_anulacion = 'INV'
GROUP BY t.local_id, l.pais, date_trunc('month', t.dia_negocio);

-- Liquidación mensual: se genera el día 1 y se domicilia el día 10 de cada mes.
CREATE OR REPLACE VIEW tw.v_liquidacion_royalties AS
SELECT
    v.local_id,
    v.mes,
    f.moneda,
    v.ventas_netas,
    ROUND(v.ventas_netas * f.pct_royalty / 100, 2)   AS royalty_calculado,
    -- Royalty mínimo: solo desde el mes 13 desde la apertura del local
    CASE WHEN v.mes >= (l.fecha_apertura + INTERVAL '12 months')
         THEN GREATEST(ROUND(v.ventas_netas * f.pct_royalty / 100, 2), f.royalty_minimo)
         ELSE ROUND(v.ventas_netas * f.pct_royalty / 100, 2)
    END                                              AS royalty_a_pagar,
    ROUND(v.ventas_netas * f.pct_marketing / 100, 2) AS canon_marketing
FROM tw.v_ventas_netas_mensuales v
JOIN tw.locales l           ON l.local_id = v.local_id
JOIN tw.tarifas_franquicia f ON f.pais = v.pais
WHERE l.franquiciado <> 'PROPIO';

-- Consulta de control para Finanzas: locales cuyo royalty del mes pasado quedó por debajo del mínimo.
-- SELECT local_id, mes, royalty_calculado, royalty_a_pagar
--   FROM tw.v_liquidacion_royalties
--  WHERE mes = date_trunc('month', now() - INTERVAL '1 month')::date
--    AND royalty_calculado < royalty_a_pagar;

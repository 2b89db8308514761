-- =====================================================================
-- Consultas de bajas (churn) — equipo de Datos e Inteligencia Comercial
-- Base: dwh_onda (PostgreSQL 15). Responsable: Gabriela Ponce.
-- Definición oficial de churn mensual: bajas voluntarias del mes divididas
-- por los servicios activos al primer día del mes. Las bajas por falta de
-- pago (motivo 'MOROSIDAD') NO se cuentan como churn voluntario; se informan
-- aparte como "bajas involuntarias".
-- =====================================================================

-- Tablas usadas
-- servicios(service_id, customer_id, pais, ciudad, plan_code, fecha_alta, fecha_baja, motivo_baja)
-- clientes(customer_id, segmento, fecha_primer_alta)

-- 1) Churn voluntario mensual por país
WITH base AS (
    SELECT date_trunc('month', d)::date AS mes
    FROM generate_series('2025-01-01'::date, '2025-12-01'::date, interval '1 month') d
),
activos AS (
    SELECT b.mes, s.pais, count(*) AS activos_inicio
    FROM base b
    JOIN servicios s
      ON s.fecha_alta < b.mes
     AND (s.fecha_baja IS NULL OR s.fecha_baja >= b.mes)
    GROUP BY b.mes, s.pais
),
bajas AS (
    SELECT date_trunc('month', fecha_baja)::date AS mes, pais, count(*) AS bajas_voluntarias
    FROM servicios
    WHERE fecha_baja IS NOT NULL
      AND motivo_baja <> 'MOROSIDAD'
    GROUP BY 1, 2
)
SELECT a.mes, a.pais, a.activos_inicio,
       coalesce(b.bajas_voluntarias, 0) AS bajas_voluntarias,
       round(100.0 * coalesce(b.bajas_voluntarias, 0) / a.activos_inicio, 2) AS churn_pct
FROM activos a
LEFT JOIN bajas b USING (mes, pais)
ORDER BY a.mes, a.pais;

-- 2) Motivos de baja más frecuentes en los últimos 90 días
-- Códigos de motivo: PRECIO, MUDANZA_SIN_COBERTURA, CALIDAD, COMPETENCIA,
-- MOROSIDAD, OTRO. 'CALIDAD' se cruza con los tickets técnicos del cliente.
SELECT motivo_baja, count(*) AS cantidad,
       round(100.0 * count(*) / sum(count(*)) OVER (), 1) AS porcentaje
FROM servicios
WHERE fecha_baja >= current_date - interval '90 days'
GROUP BY motivo_baja
ORDER BY cantidad DESC;

-- 3) Clientes en riesgo: 3 o más tickets técnicos en 60 días.
-- Esta lista se envía cada lunes al equipo de Retención.
SELECT s.customer_id, s.plan_code, s.ciudad, count(t.ticket_id) AS tickets_60d
FROM servicios s
JOIN tickets_tecnicos t ON t.customer_id = s.customer_id
WHERE s.fecha_baja IS NULL
  AND t.fecha_apertura >= current_date - interval '60 days'
GROUP BY s.customer_id, s.plan_code, s.ciudad
HAVING count(t.ticket_id) >= 3
ORDER BY tickets_60d DESC;

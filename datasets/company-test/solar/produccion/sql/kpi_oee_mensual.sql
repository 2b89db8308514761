-- =====================================================================
-- kpi_oee_mensual.sql
-- Cálculo mensual del OEE por línea de producción (planta de Zaragoza).
-- Origen de datos: MES (esquema mes_prod). Resultado: tabla kpi.oee_mensual,
-- de la que se alimenta el libro produccion/kpis_produccion_2024.xlsx.
-- Autor: Ingeniería de Procesos. Última modificación: 2025-01-09.
--
-- Definiciones (ver también el glosario técnico):
--   OEE            = disponibilidad * rendimiento * calidad
--   disponibilidad = tiempo_operativo / tiempo_planificado
--   rendimiento    = (unidades_totales * tiempo_ciclo_ideal) / tiempo_operativo
--   calidad        = unidades_buenas_primera / unidades_totales   (equivale al FPY)
--
-- Notas:
--   * El tiempo planificado NO incluye las paradas programadas de mantenimiento
--     (código de parada 'PARADA_PM') ni los cierres del calendario laboral.
--   * Las paradas de menos de 3 minutos se cuentan como microparadas y penalizan el
--     rendimiento, no la disponibilidad.
--   * Tiempo de ciclo ideal: línea L1 (inversores) 190 s; línea L2 (baterías) 240 s.
-- =====================================================================

DELETE FROM kpi.oee_mensual
WHERE periodo = DATE_TRUNC('month', CAST(:mes AS DATE));

INSERT INTO kpi.oee_mensual (periodo, linea, tiempo_planificado_min, tiempo_operativo_min,
                             unidades_totales, unidades_buenas, disponibilidad, rendimiento,
                             calidad, oee)
WITH turnos AS (
    SELECT t.linea,
           SUM(t.minutos_turno) AS minutos_turno
    FROM mes_prod.turnos_trabajados t
    WHERE DATE_TRUNC('month', t.fecha) = DATE_TRUNC('month', CAST(:mes AS DATE))
    GROUP BY t.linea
),
paradas AS (
    SELECT p.linea,
           SUM(CASE WHEN p.codigo = 'PARADA_PM' THEN p.minutos ELSE 0 END) AS min_programadas,
           SUM(CASE WHEN p.codigo <> 'PARADA_PM' AND p.minutos >= 3 THEN p.minutos ELSE 0 END) AS min_no_planificadas
    FROM mes_prod.paradas p
    WHERE DATE_TRUNC('month', p.inicio) = DATE_TRUNC('month', CAST(:mes AS DATE))
    GROUP BY p.linea
),
produccion AS (
    SELECT u.linea,
           COUNT(*) AS unidades_totales,
           SUM(CASE WHEN u.resultado_primer_ensayo = 'OK' THEN 1 ELSE 0 END) AS unidades_buenas
    FROM mes_prod.unidades u
    WHERE DATE_TRUNC('month', u.fecha_fin) = DATE_TRUNC('month', CAST(:mes AS DATE))
    GROUP BY u.linea
),
ciclo AS (
    SELECT 'L1' AS linea, 190 AS ciclo_ideal_s
    UNION ALL
    SELECT 'L2', 240
)
SELECT DATE_TRUNC('month', CAST(:mes AS DATE))                          AS periodo,
       tu.linea,
       tu.minutos_turno - COALESCE(pa.min_programadas, 0)                AS tiempo_planificado_min,
       tu.minutos_turno - COALESCE(pa.min_programadas, 0)
                        - COALESCE(pa.min_no_planificadas, 0)            AS tiempo_operativo_min,
       pr.unidades_totales,
       pr.unidades_buenas,
       ROUND(1.0 * (tu.minutos_turno - COALESCE(pa.min_programadas, 0) - COALESCE(pa.min_no_planificadas, 0))
             / NULLIF(tu.minutos_turno - COALESCE(pa.min_programadas, 0), 0), 4)          AS disponibilidad,
       ROUND(1.0 * pr.unidades_totales * ci.ciclo_ideal_s / 60.0
             / NULLIF(tu.minutos_turno - COALESCE(pa.min_programadas, 0) - COALESCE(pa.min_no_planificadas, 0), 0), 4) AS rendimiento,
       ROUND(1.0 * pr.unidades_buenas / NULLIF(pr.unidades_totales, 0), 4)                AS calidad,
       NULL                                                                               AS oee  -- se rellena abajo
FROM turnos tu
JOIN produccion pr ON pr.linea = tu.linea
JOIN ciclo ci      ON ci.linea = tu.linea
LEFT JOIN paradas pa ON pa.linea = tu.linea;

-- El OEE se calcula en un segundo paso para poder auditar cada factor por separado.
UPDATE kpi.oee_mensual
SET oee = ROUND(disponibilidad * rendimiento * calidad, 4)
WHERE periodo = DATE_TRUNC('month', CAST(:mes AS DATE));

-- Objetivo 2024 aprobado por Dirección de Planta: OEE >= 0,80 en L1 y >= 0,75 en L2.

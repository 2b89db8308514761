-- =====================================================================
-- consumo_anomalo.sql
-- Informe trimestral de consumos anómalos (posibles fugas interiores)
-- Aguas del Tajo Medio · Departamento de Sistemas
-- Autor: Daniel Ortega Campos · Revisado por Atención al Cliente (M. Ibarrola)
-- Se ejecuta el día 3 del primer mes de cada trimestre a las 06:00
-- (cron en bd-informes.atm.local) y el resultado se envía a
-- contadores@aguastajomedio.es para que avisen al cliente antes de facturar.
--
-- Criterio (acordado con Atención al Cliente en marzo de 2024):
--   * consumo del trimestre > 4 veces la media de los 4 trimestres anteriores
--   * y consumo del trimestre >= 30 m³
--   * se excluyen las lecturas estimadas (source = 'estimated')
--   * se excluyen suministros con menos de 4 trimestres de historia
-- Parámetros: :anio, :trimestre
-- =====================================================================

WITH consumo_trimestral AS (
    SELECT
        l.meter_id,
        sp.cups,
        sp.municipio,
        sp.uso,                                   -- 'domestico' | 'industrial'
        date_trunc('quarter', l.read_at)::date AS trimestre,
        MAX(l.value_m3) - MIN(l.value_m3)      AS consumo_m3
    FROM lecturas l
    JOIN puntos_suministro sp ON sp.meter_id = l.meter_id
    WHERE l.source <> 'estimated'
      AND l.quality <> 'rejected'
    GROUP BY l.meter_id, sp.cups, sp.municipio, sp.uso,
             date_trunc('quarter', l.read_at)
),
historico AS (
    SELECT
        c.meter_id,
        AVG(c.consumo_m3) AS media_4t,
        COUNT(*)          AS n_trimestres
    FROM consumo_trimestral c
    WHERE c.trimestre >= make_date(:anio, 3 * :trimestre - 2, 1) - INTERVAL '12 months'
      AND c.trimestre <  make_date(:anio, 3 * :trimestre - 2, 1)
    GROUP BY c.meter_id
)
SELECT
    a.municipio,
    a.cups,
    a.meter_id,
    a.uso,
    a.consumo_m3                           AS consumo_actual_m3,
    ROUND(h.media_4t, 1)                   AS media_4_trimestres_m3,
    ROUND(a.consumo_m3 / NULLIF(h.media_4t, 0), 1) AS ratio
FROM consumo_trimestral a
JOIN historico h ON h.meter_id = a.meter_id
WHERE a.trimestre = make_date(:anio, 3 * :trimestre - 2, 1)
  AND h.n_trimestres = 4
  AND a.consumo_m3 >= 30
  AND a.consumo_m3 > 4 * h.media_4t
ORDER BY ratio DESC, a.municipio;

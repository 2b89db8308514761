-- =====================================================================
-- facturacion_trimestral.sql
-- Volumen facturado por municipio, uso y bloque tarifario
-- Aguas del Tajo Medio · Departamento de Sistemas / Dirección Financiera
-- Lo usa Dirección Financiera (Rocío Almagro Díaz) para el cierre trimestral
-- y para las cifras de la presentación al Consejo.
--
-- Tablas:
--   v_consumo_facturable  vista con el consumo por suministro y trimestre
--                         (incluye lecturas estimadas, a diferencia de consumo_anomalo.sql)
--   tarifas_bloques       límites y precios por municipio, uso, año y bloque
--                         (se carga cada enero desde las ordenanzas; ver tarifas/*.md)
-- Parámetros: :anio, :trimestre
-- =====================================================================

-- Reparte el consumo de cada suministro entre los bloques de su tarifa
WITH reparto AS (
    SELECT
        c.municipio,
        c.uso,
        t.bloque,
        GREATEST(0, LEAST(c.consumo_m3, COALESCE(t.limite_superior_m3, c.consumo_m3))
                    - t.limite_inferior_m3) AS m3_en_bloque,
        t.precio_eur_m3
    FROM v_consumo_facturable c
    JOIN tarifas_bloques t
      ON t.municipio = c.municipio
     AND t.uso       = c.uso
     AND t.anio      = :anio
    WHERE c.anio = :anio
      AND c.trimestre = :trimestre
)
SELECT
    municipio,
    uso,
    bloque,
    SUM(m3_en_bloque)                          AS m3_facturados,
    ROUND(SUM(m3_en_bloque * precio_eur_m3), 2) AS importe_sin_iva_eur
FROM reparto
GROUP BY ROLLUP (municipio, uso, bloque)
ORDER BY municipio, uso, bloque;

-- Nota: las cuotas de servicio, alcantarillado y depuración se calculan en el
-- sistema de facturación, no en este informe. Para el agua no registrada
-- (volumen producido - volumen facturado) usar el informe anr_mensual.sql.

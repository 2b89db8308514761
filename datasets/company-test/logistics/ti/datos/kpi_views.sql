-- kpi_views.sql
-- Vistas de KPIs de almacén que alimentan el libro kpis_almacenes_2025.xlsx.
-- Base de datos: wms_reportes (PostgreSQL). Responsable: Inteligencia de Negocio, ext. 2640.

-- OTIF: un pedido es "a tiempo" si se entrega dentro de una ventana de ±30 minutos
-- respecto a la cita, y "completo" si se entregan el 100 % de las tarimas pedidas.
CREATE OR REPLACE VIEW v_kpi_otif AS
SELECT
    p.sitio,
    date_trunc('month', p.fecha_cita)::date AS mes,
    COUNT(*) AS pedidos,
    COUNT(*) FILTER (
        WHERE abs(extract(epoch FROM (p.entregado_en - p.fecha_cita))) <= 1800
          AND p.tarimas_entregadas = p.tarimas_pedidas
    ) AS pedidos_otif,
    round(100.0 * COUNT(*) FILTER (
        WHERE abs(extract(epoch FROM (p.entregado_en - p.fecha_cita))) <= 1800
          AND p.tarimas_entregadas = p.tarimas_pedidas
    ) / NULLIF(COUNT(*), 0), 2) AS otif_pct
FROM pedidos p
WHERE p.estatus = 'ENTREGADO'
GROUP BY 1, 2;

-- Dock-to-stock: horas desde la colocación en andén hasta la ubicación de la última tarima.
CREATE OR REPLACE VIEW v_kpi_dock_to_stock AS
SELECT
    r.sitio,
    date_trunc('month', r.en_anden)::date AS mes,
    round(avg(extract(epoch FROM (r.ultima_ubicacion - r.en_anden)) / 3600.0)::numeric, 2) AS dock_to_stock_h
FROM recepciones r
WHERE r.ultima_ubicacion IS NOT NULL
GROUP BY 1, 2;

-- Exactitud de inventario: ubicaciones contadas sin diferencia / ubicaciones contadas.
CREATE OR REPLACE VIEW v_kpi_exactitud_inventario AS
SELECT
    c.sitio,
    date_trunc('month', c.fecha_conteo)::date AS mes,
    round(100.0 * COUNT(*) FILTER (WHERE c.diferencia = 0) / NULLIF(COUNT(*), 0), 2) AS exactitud_pct
FROM conteos_ciclicos c
GROUP BY 1, 2;

-- Ocupación: posiciones ocupadas promedio / posiciones totales del sitio.
-- Posiciones totales: MTY 6200, GDL 4100, LRD 2300.
CREATE OR REPLACE VIEW v_kpi_ocupacion AS
SELECT
    o.sitio,
    date_trunc('month', o.fecha)::date AS mes,
    round(100.0 * avg(o.posiciones_ocupadas) / max(s.posiciones_totales), 2) AS ocupacion_pct
FROM ocupacion_diaria o
JOIN sitios s ON s.sitio = o.sitio
GROUP BY 1, 2;

-- Excursiones por mes y nivel (desde la tabla que llena la API /excursions).
CREATE OR REPLACE VIEW v_kpi_excursiones AS
SELECT
    e.sitio,
    date_trunc('month', e.inicio)::date AS mes,
    COUNT(*) AS excursiones,
    COUNT(*) FILTER (WHERE e.nivel = 3) AS excursiones_nivel3
FROM excursiones e
GROUP BY 1, 2;

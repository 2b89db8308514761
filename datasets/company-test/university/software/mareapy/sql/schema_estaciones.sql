-- =============================================================================
-- schema_estaciones.sql
-- Base de datos de estaciones y campañas del Departamento de Ciencias del Mar
-- Usada por mareapy.io.load_station_table() (variable MAREAPY_STATIONS_DB)
-- Motor: PostgreSQL 15 con PostGIS 3.4
-- Responsable: Servicios de Cálculo (hpc-dcm@upas.es)
-- =============================================================================

CREATE EXTENSION IF NOT EXISTS postgis;

-- Campañas oceanográficas. El código sigue el patrón AE<año>-<nn> para las
-- campañas del B/O Arráez del Estrecho (por ejemplo AE2024-03).
CREATE TABLE campanas (
    codigo          VARCHAR(12) PRIMARY KEY,
    nombre          TEXT        NOT NULL,
    jefe_cientifico TEXT        NOT NULL,
    fecha_inicio    DATE        NOT NULL,
    fecha_fin       DATE        NOT NULL,
    buque           TEXT        NOT NULL DEFAULT 'Arráez del Estrecho',
    proyecto        VARCHAR(30),
    CHECK (fecha_fin >= fecha_inicio)
);

-- Estaciones fijas de muestreo. El código de estación es ST seguido de dos
-- cifras (ST01-ST99). Las estaciones retiradas no se borran: se marca activa = false.
CREATE TABLE estaciones (
    codigo          CHAR(4)     PRIMARY KEY CHECK (codigo ~ '^ST[0-9]{2}$'),
    nombre          TEXT        NOT NULL,
    zona            TEXT        NOT NULL CHECK (zona IN ('Bahía de Cádiz', 'Golfo de Cádiz', 'Estrecho', 'Bahía de Algeciras')),
    geom            GEOMETRY(Point, 4326) NOT NULL,
    profundidad_m   NUMERIC(6,1) NOT NULL,  -- profundidad del fondo en metros
    activa          BOOLEAN     NOT NULL DEFAULT TRUE,
    observaciones   TEXT
);

-- Lances de CTD. Un lance pertenece a una campaña y a una estación.
CREATE TABLE lances_ctd (
    id              SERIAL      PRIMARY KEY,
    campana         VARCHAR(12) NOT NULL REFERENCES campanas(codigo),
    estacion        CHAR(4)     NOT NULL REFERENCES estaciones(codigo),
    inicio_utc      TIMESTAMP   NOT NULL,
    presion_max_dbar NUMERIC(7,1),
    fichero_cnv     TEXT        NOT NULL,   -- ruta en /project/dcm-ocean/ctd/raw
    fichero_nc      TEXT,                   -- ruta del NetCDF procesado con mareapy
    procesado_con   VARCHAR(20),            -- versión de mareapy, p. ej. '2.4.0'
    UNIQUE (campana, estacion, inicio_utc)
);

CREATE INDEX idx_lances_estacion ON lances_ctd (estacion);
CREATE INDEX idx_estaciones_geom ON estaciones USING GIST (geom);

-- Vista para la web: última visita a cada estación activa
CREATE VIEW v_ultima_visita AS
SELECT e.codigo, e.nombre, e.zona, MAX(l.inicio_utc) AS ultima_visita
FROM estaciones e
LEFT JOIN lances_ctd l ON l.estacion = e.codigo
WHERE e.activa
GROUP BY e.codigo, e.nombre, e.zona;

-- Datos iniciales: estaciones de la serie temporal costera
INSERT INTO estaciones (codigo, nombre, zona, geom, profundidad_m, activa, observaciones) VALUES
('ST01', 'Puntal',            'Bahía de Cádiz',     ST_SetSRID(ST_MakePoint(-6.2510, 36.5210), 4326),   9.5, TRUE,  NULL),
('ST03', 'Bajo de la Cabezuela','Bahía de Cádiz',   ST_SetSRID(ST_MakePoint(-6.2235, 36.5460), 4326),  14.0, TRUE,  NULL),
('ST07', 'Placer de Meca',    'Golfo de Cádiz',     ST_SetSRID(ST_MakePoint(-6.3980, 36.2720), 4326),  62.0, TRUE,  'Estación de referencia del fondeo MECA-1'),
('ST12', 'Cañón de Trafalgar','Golfo de Cádiz',     ST_SetSRID(ST_MakePoint(-6.3005, 36.0550), 4326), 410.0, TRUE,  NULL),
('ST15', 'Umbral de Camarinal','Estrecho',          ST_SetSRID(ST_MakePoint(-5.7420, 35.9330), 4326), 285.0, TRUE,  'Corrientes de marea > 2 m/s: lance solo en repunte'),
('ST18', 'Punta Carnero',     'Bahía de Algeciras', ST_SetSRID(ST_MakePoint(-5.4290, 36.0750), 4326),  48.0, TRUE,  NULL),
('ST21', 'Isla Verde',        'Bahía de Algeciras', ST_SetSRID(ST_MakePoint(-5.4380, 36.1220), 4326),  22.0, FALSE, 'Retirada en 2023 por obras del puerto');

/**
 * calculadora_plazos.js — Widget de la intranet para estimar vencimientos procesales.
 *
 * ¡Aviso! Es una ayuda orientativa. El cómputo oficial es el que figura en Quorum
 * (calculadora de plazos con calendarios por oficina) y siempre lo revisa el
 * responsable de control indicado en las tablas de plazos (PL-ES-nn / PL-CO-nn).
 *
 * Mantenimiento: equipo de Procesal Madrid, con Soporte TI. Versión 1.3 (enero de 2025).
 */

'use strict';

// Festivos cargados desde /api/calendario?anio=2025 (hoja "Madrid 2025" / "Bogotá 2025").
let FESTIVOS = { MAD: new Set(), BOG: new Set() };

/** Número de días de margen que el widget resta para proponer la alerta interna. */
const MARGEN_ALERTA_POR_DEFECTO = 3;

/**
 * Indica si una fecha es hábil a efectos procesales en la oficina indicada.
 * En Madrid, todo el mes de agosto es inhábil (salvo actuaciones urgentes).
 * @param {Date} fecha
 * @param {'MAD'|'BOG'} oficina
 * @returns {boolean}
 */
function esDiaHabil(fecha, oficina) {
  const dia = fecha.getDay();
  if (dia === 0 || dia === 6) return false;
  if (oficina === 'MAD' && fecha.getMonth() === 7) return false; // agosto
  const iso = fecha.toISOString().slice(0, 10);
  return !FESTIVOS[oficina].has(iso);
}

/**
 * Suma días hábiles a partir del día siguiente a la notificación.
 * @param {Date} notificacion  fecha de notificación
 * @param {number} dias        número de días hábiles del plazo
 * @param {'MAD'|'BOG'} oficina
 * @returns {Date} último día del plazo
 */
function sumarDiasHabiles(notificacion, dias, oficina) {
  const f = new Date(notificacion);
  let restantes = dias;
  while (restantes > 0) {
    f.setDate(f.getDate() + 1);
    if (esDiaHabil(f, oficina)) restantes--;
  }
  return f;
}

/**
 * Devuelve la fecha de alerta interna (días hábiles antes del vencimiento).
 * @param {Date} vencimiento
 * @param {number} [margen=MARGEN_ALERTA_POR_DEFECTO]
 * @param {'MAD'|'BOG'} oficina
 */
function fechaAlerta(vencimiento, margen = MARGEN_ALERTA_POR_DEFECTO, oficina = 'MAD') {
  const f = new Date(vencimiento);
  let restantes = margen;
  while (restantes > 0) {
    f.setDate(f.getDate() - 1);
    if (esDiaHabil(f, oficina)) restantes--;
  }
  return f;
}

/**
 * @deprecated Desde la versión 1.2. Use sumarDiasHabiles(notificacion, dias, 'MAD').
 * Se mantiene porque la antigua página de Procesal todavía la llama.
 */
function calcularVencimiento(notificacion, dias) {
  console.warn('calcularVencimiento() está obsoleta: use sumarDiasHabiles()');
  return sumarDiasHabiles(notificacion, dias, 'MAD');
}

async function cargarFestivos(anio) {
  const r = await fetch(`/api/calendario?anio=${anio}`);
  const datos = await r.json();
  FESTIVOS = { MAD: new Set(datos.MAD), BOG: new Set(datos.BOG) };
}

export { esDiaHabil, sumarDiasHabiles, fechaAlerta, calcularVencimiento, cargarFestivos };

/**
 * appointment-widget.js
 * Online appointment booking widget embedded in the public websites of Red Hospitalaria Alba.
 * Talks to the AlbaCare Patient Portal API (/api/v2/appointments/slots, available since AlbaCare 5.4.0).
 *
 * Maintainer: Alba IT - Web & Portal team
 */

const WIDGET_CONFIG = {
  apiBase: "https://portal.redhospitalariaalba.es/api/v2",
  // Patients can book up to this many days ahead
  maxDaysAhead: 60,
  // Online cancellation is allowed until this many hours before the appointment;
  // after that, patients must phone the booking line
  cancellationCutoffHours: 24,
  // Maximum number of future appointments a patient can hold at the same time
  maxActiveAppointments: 4,
  // Sites shown in the site selector (codes as in the integration glossary)
  sites: {
    HAS: { label: "Hospital Alba Sevilla", locale: "es-ES", timezone: "Europe/Madrid" },
    CAN: { label: "Centro Alba Nervión", locale: "es-ES", timezone: "Europe/Madrid" },
    CAA: { label: "Centro Alba Aljarafe", locale: "es-ES", timezone: "Europe/Madrid" },
    CAS: { label: "Clínica Alba Santiago", locale: "es-CL", timezone: "America/Santiago" },
    CAP: { label: "Centro Alba Providencia", locale: "es-CL", timezone: "America/Santiago" },
    CAM: { label: "Centro Alba Maipú", locale: "es-CL", timezone: "America/Santiago" },
  },
  // Specialties that cannot be booked online (need a referral or a phone call)
  phoneOnlySpecialties: ["Oncología", "Unidad del Dolor", "Salud Mental"],
};

/**
 * Fetch free slots for a specialty at a site.
 * @param {string} siteCode - one of the keys of WIDGET_CONFIG.sites
 * @param {string} specialtyId - AlbaCare specialty identifier
 * @param {Date} from - first day to search
 * @returns {Promise<Array>} list of slots {start, end, practitioner}
 */
async function fetchSlots(siteCode, specialtyId, from) {
  const to = new Date(from);
  to.setDate(to.getDate() + WIDGET_CONFIG.maxDaysAhead);
  const params = new URLSearchParams({
    site: siteCode,
    specialty: specialtyId,
    from: from.toISOString().slice(0, 10),
    to: to.toISOString().slice(0, 10),
  });
  const res = await fetch(`${WIDGET_CONFIG.apiBase}/appointments/slots?${params}`);
  if (!res.ok) {
    throw new Error(`Slots request failed with HTTP ${res.status}`);
  }
  return res.json();
}

/**
 * Return true if the appointment can still be cancelled online.
 * @param {Date} appointmentStart
 */
function canCancelOnline(appointmentStart) {
  const hoursLeft = (appointmentStart - new Date()) / 36e5;
  return hoursLeft >= WIDGET_CONFIG.cancellationCutoffHours;
}

/**
 * Format a slot for display in the site's own locale and time zone.
 * @param {{start: string}} slot
 * @param {string} siteCode
 */
function formatSlot(slot, siteCode) {
  const site = WIDGET_CONFIG.sites[siteCode];
  return new Date(slot.start).toLocaleString(site.locale, {
    timeZone: site.timezone,
    weekday: "long",
    day: "numeric",
    month: "long",
    hour: "2-digit",
    minute: "2-digit",
  });
}

/**
 * @deprecated Use fetchSlots() instead. Calls the old /api/v1 endpoint, which AlbaCare will remove in 6.0.
 */
async function getAvailability(siteCode, specialtyId) {
  console.warn("getAvailability() is deprecated, use fetchSlots()");
  return fetchSlots(siteCode, specialtyId, new Date());
}

export { WIDGET_CONFIG, fetchSlots, canCancelOnline, formatSlot, getAvailability };

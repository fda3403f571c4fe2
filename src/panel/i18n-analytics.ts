/**
 * The words of the operator's margins and carrier analytics pages, in
 * Spanish and English (joined into i18n.ts's dictionaries).
 */
export const analyticsEs = {
  margins: 'Márgenes',
  margins_by: 'Agrupar por',
  margins_by_account: 'Cuenta',
  margins_by_carrier: 'Operador',
  margins_by_prefix: 'Prefijo de precio',
  margins_by_day: 'Día',
  margins_chart: 'Ingresos, costo y margen por día ({currency})',
  margins_none: 'Ningún mensaje aceptado en el periodo.',
  margins_no_prefix: 'Precio del canal o por omisión',
  margins_no_carrier: 'Sin operador',
  margins_help:
    'Mensajes aceptados en el periodo (días de la Ciudad de México): ingresos = créditos que quedaron cobrados × valor del crédito al aceptarlos; costo = costo del operador al entregárselo; margen = ingresos − costo. Como mensajero reports margins.',
  margins_cost_unknown:
    '{count} mensajes se entregaron a un operador sin costo conocido para ellos: su costo no está en Costo y el margen está sobrestimado (configúralo con mensajero carriers costs set).',
  margins_cost_unknown_help: 'Mensajes entregados sin costo conocido del operador',
  cost_unknown: 'Sin costo conocido',
  parts: 'Partes',
  revenue: 'Ingresos',
  cost: 'Costo',
  margin: 'Margen',
  analytics_by: 'Ver por',
  analytics_by_carrier: 'Operador',
  analytics_by_prefix: 'Operador y prefijo de destino',
  analytics_prefix_help:
    'Prefijo de destino: el prefijo de costo del operador con que se entregó cada mensaje (vacío: sin costo configurado).',
  analytics_events_help:
    'Limitados, rechazados y errores: respuestas del operador al entregarle mensajes (limitación de velocidad, rechazos definitivos, errores y tiempos de espera), contadas por minuto en todos los procesos.',
  throttled: 'Limitados',
  refused: 'Rechazados',
  errors: 'Errores',
  analytics_volume: 'Mensajes entregados a cada operador',
  analytics_rate: 'Tasa de entrega por operador (%)',
  slot: 'Hora',
};

export const analyticsEn: Record<keyof typeof analyticsEs, string> = {
  margins: 'Margins',
  margins_by: 'Group by',
  margins_by_account: 'Account',
  margins_by_carrier: 'Carrier',
  margins_by_prefix: 'Price prefix',
  margins_by_day: 'Day',
  margins_chart: 'Revenue, cost and margin per day ({currency})',
  margins_none: 'No message was accepted in the period.',
  margins_no_prefix: 'Channel or default price',
  margins_no_carrier: 'No carrier',
  margins_help:
    'Messages accepted in the period (Mexico City days): revenue = credits that stayed charged × the credit value when they were accepted; cost = what the carrier charged at hand-off; margin = revenue − cost. The same as mensajero reports margins.',
  margins_cost_unknown:
    '{count} messages were handed to a carrier with no cost known for them: their cost is not in Cost and the margin is overstated (set it with mensajero carriers costs set).',
  margins_cost_unknown_help: 'Messages handed over with no carrier cost known',
  cost_unknown: 'Cost unknown',
  parts: 'Parts',
  revenue: 'Revenue',
  cost: 'Cost',
  margin: 'Margin',
  analytics_by: 'Show by',
  analytics_by_carrier: 'Carrier',
  analytics_by_prefix: 'Carrier and destination prefix',
  analytics_prefix_help:
    'Destination prefix: the carrier cost prefix each message was handed over at (empty: no cost configured).',
  analytics_events_help:
    'Throttled, refused and errors: the carrier’s answers when messages were handed to it (throttling, refusals for good, errors and timeouts), counted per minute across every process.',
  throttled: 'Throttled',
  refused: 'Refused',
  errors: 'Errors',
  analytics_volume: 'Messages handed to each carrier',
  analytics_rate: 'Delivery rate per carrier (%)',
  slot: 'Time',
};

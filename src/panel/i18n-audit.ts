/** The words of the operator's audit log page, in Spanish and English (joined into i18n.ts's dictionaries). */
export const auditEs = {
  audit_log: 'Bitácora de cambios',
  audit_help:
    'Cada cambio hecho con la API de operador, la línea de comandos o esta vista de operador, el más reciente primero (como mensajero audit list). Nunca se guardan contraseñas, tokens ni claves.',
  audit_none: 'Ningún cambio registrado.',
  audit_at: 'Cuándo (UTC)',
  audit_actor: 'Quién',
  audit_action: 'Cambio',
  audit_target: 'Sobre',
  audit_detail: 'Detalle',
  audit_address: 'Dirección',
  audit_actor_filter: 'Quién (cli, token:NOMBRE, panel:CORREO)',
};

export const auditEn: Record<keyof typeof auditEs, string> = {
  audit_log: 'Audit log',
  audit_help:
    'Every change made through the operator API, the command line or this operator view, newest first (as mensajero audit list shows them). Passwords, tokens and keys are never recorded.',
  audit_none: 'No change recorded.',
  audit_at: 'When (UTC)',
  audit_actor: 'Who',
  audit_action: 'Change',
  audit_target: 'On',
  audit_detail: 'Detail',
  audit_address: 'Address',
  audit_actor_filter: 'Who (cli, token:NAME, panel:EMAIL)',
};

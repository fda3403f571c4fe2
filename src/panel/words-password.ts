/** The panel's words about a forgotten password and its one-time reset link, joined into i18n.ts. */
export const passwordWordsEs = {
  forgot_link: '¿Olvidaste tu contraseña?',
  forgot_title: 'Restablecer la contraseña',
  forgot_help: 'Escribe el correo de tu cuenta: te enviaremos un enlace para elegir una contraseña nueva.',
  forgot_submit: 'Enviar el enlace',
  forgot_sent:
    'Si el correo corresponde a una cuenta, te enviamos un enlace para elegir una contraseña nueva. Caduca en 1 hora.',
  forgot_no_mail:
    'Este servicio no envía correos. Pide a quien lo administra un enlace para restablecer tu contraseña.',
  forgot_mail_subject: 'Restablece tu contraseña de Mensajero',
  forgot_mail_text:
    'Alguien pidió restablecer la contraseña de tu cuenta de Mensajero. Abre este enlace para elegir una nueva (caduca en 1 hora y funciona una sola vez):\n\n{url}\n\nSi no lo pediste, ignora este correo: tu contraseña no cambia.',
  reset_title: 'Elige una contraseña nueva',
  reset_submit: 'Guardar la contraseña',
  reset_invalid: 'El enlace no es válido: ya se usó o caducó. Pide uno nuevo.',
  reset_done: 'Contraseña guardada: se cerraron todas las sesiones de la cuenta. Ya puedes iniciar sesión.',
  back_to_signin: 'Ir a iniciar sesión',
};

export const passwordWordsEn: { [K in keyof typeof passwordWordsEs]: string } = {
  forgot_link: 'Forgot your password?',
  forgot_title: 'Reset the password',
  forgot_help: "Type your account's email: we will send you a link to choose a new password.",
  forgot_submit: 'Send the link',
  forgot_sent: 'If the email belongs to an account, we sent it a link to choose a new password. It expires in 1 hour.',
  forgot_no_mail: 'This service sends no email. Ask whoever runs it for a link to reset your password.',
  forgot_mail_subject: 'Reset your Mensajero password',
  forgot_mail_text:
    'Someone asked to reset the password of your Mensajero account. Open this link to choose a new one (it expires in 1 hour and works once):\n\n{url}\n\nIf you did not ask for it, ignore this email: your password does not change.',
  reset_title: 'Choose a new password',
  reset_submit: 'Save the password',
  reset_invalid: 'The link is not valid: it was used or it expired. Ask for a new one.',
  reset_done: 'Password saved: every session of the account was signed out. You can sign in now.',
  back_to_signin: 'Go to sign in',
};

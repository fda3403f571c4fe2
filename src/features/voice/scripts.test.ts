import { describe, expect, it } from 'vitest';
import { renderScript, speakable, spell, type ScriptInput } from './scripts.js';

describe('voice scripts', () => {
  it.each<[ScriptInput, string]>([
    [
      { template: 'a', company: 'Acme', code: '4815' },
      'Hola, te llamamos de Acme. Tu código de verificación es: 4, 8, 1, 5. Repito: 4, 8, 1, 5. No compartas este código con nadie.',
    ],
    [
      { template: 'a', code: 'AB12cd9' },
      'Hola. Tu código de verificación es: A, B, 1, 2, c, d, 9. Repito: A, B, 1, 2, c, d, 9. No compartas este código con nadie.',
    ],
    [
      { template: 'b', company: 'Clínica Sol' },
      'Hola, te llamamos de Clínica Sol. Te recordamos tu próxima cita. Por favor llega diez minutos antes.',
    ],
    [
      { template: 'b', company: 'Clínica Sol', code: '20931' },
      'Hola, te llamamos de Clínica Sol. Te recordamos tu próxima cita. Por favor llega diez minutos antes. Tu número de confirmación es: 2, 0, 9, 3, 1.',
    ],
    [
      { template: 'c', company: 'Acme S.A.' },
      'Hola, te llamamos de Acme S.A. Recibimos tu pedido y ya lo estamos preparando.',
    ],
    [{ template: 'k', company: 'Acme Co.', voiceMessage: 'Hola' }, 'Mensaje de Acme Co. Hola'],
    [{ template: 'c' }, 'Hola. Recibimos tu pedido y ya lo estamos preparando.'],
    [
      { template: 'd', code: 'MX12345678' },
      'Hola. Tu pedido va en camino y llegará pronto. Tu número de guía es: M, X, 1, 2, 3, 4, 5, 6, 7, 8.',
    ],
    [
      { template: 'e', company: 'Banco' },
      'Hola, te llamamos de Banco. Tienes un pago pendiente. Paga a tiempo para evitar cargos adicionales.',
    ],
    [
      { template: 'f', code: '9999' },
      'Hola. Recibimos tu pago. Gracias por tu preferencia. Tu número de comprobante es: 9, 9, 9, 9.',
    ],
    [
      { template: 'g' },
      'Hola. Detectamos un nuevo inicio de sesión en tu cuenta. Si no fuiste tú, cambia tu contraseña de inmediato.',
    ],
    [
      { template: 'h', code: 'X1Y2' },
      'Hola. Recibimos una solicitud para restablecer tu contraseña. Si no la hiciste, ignora esta llamada. Tu código para restablecerla es: X, 1, Y, 2.',
    ],
    [
      { template: 'i', company: 'Tienda' },
      'Hola, te llamamos de Tienda. Tu pedido está listo para recoger en sucursal.',
    ],
    [{ template: 'j' }, 'Hola. Te damos la bienvenida. Gracias por registrarte.'],
    [{ template: 'k', voiceMessage: 'Su cita es mañana a las 10.' }, 'Su cita es mañana a las 10.'],
    [{ template: 'k', company: 'Acme', voiceMessage: 'Hay ofertas hoy.' }, 'Mensaje de Acme. Hay ofertas hoy.'],
  ])('%j', (input, expected) => expect(renderScript(input)).toBe(expected));

  it.each([
    ['Hola, ¿cómo estás? 😀', 'Hola, cómo estás'],
    ['Precio: $100 (IVA incluido)!', 'Precio 100 IVA incluido'],
    ['línea\nnueva\tcon   espacios', 'línea nueva con espacios'],
    ['<script>alert(1)</script>', 'scriptalert1script'],
    ['Ñandú, 3.5 kg.', 'Ñandú, 3.5 kg.'],
    ['  ', ''],
  ])('speakable(%j) is %j', (text, expected) => expect(speakable(text)).toBe(expected));

  it('spells a code one character at a time', () => expect(spell('a1B')).toBe('a, 1, B'));
});

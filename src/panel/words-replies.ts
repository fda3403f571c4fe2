/** The panel's words about customers' replies (the Replies page), joined into i18n.ts. */
export const repliesWordsEs = {
  replies: 'Respuestas',
  replies_help:
    'Los mensajes que te escriben tus clientes: respuestas a tus mensajes y los que llegan a tus números o palabras clave (rutas de entrada que configura el operador). Los más recientes primero.',
  replies_none: 'Aún no hay respuestas.',
  reply_received: 'Recibida',
  reply_from: 'De',
  reply_to: 'A',
  reply_text: 'Texto',
  reply_answers: 'Responde a',
  reply_route: 'Ruta de entrada: {route}',
  reply_route_gone: 'Ruta de entrada (ya eliminada)',
  reply_any: 'cualquiera',
  replies_older: 'Más antiguas',
  replies_newest: 'Más recientes',
} as const;

export const repliesWordsEn: { [K in keyof typeof repliesWordsEs]: string } = {
  replies: 'Replies',
  replies_help:
    'What your customers write to you: replies to your messages, and messages to your numbers or keywords (inbound routes the operator sets up). Newest first.',
  replies_none: 'No replies yet.',
  reply_received: 'Received',
  reply_from: 'From',
  reply_to: 'To',
  reply_text: 'Text',
  reply_answers: 'Answers',
  reply_route: 'Inbound route: {route}',
  reply_route_gone: 'Inbound route (since removed)',
  reply_any: 'any',
  replies_older: 'Older',
  replies_newest: 'Newest',
};

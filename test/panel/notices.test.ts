import { beforeAll, expect, it } from 'vitest';
import { describePanel } from '../helpers/panel.js';
import { createSession, SESSION_COOKIE } from '../../src/panel/session.js';

const NOTICE = /<p class="notice" role="status">([^<]*)<\/p>/;

/** The notice a page shows after an action ("Campaña aceptada: 2 mensajes."): only what the action left, signed. */
describePanel('panel notices', { over: 'http' }, (panel) => {
  let cookie: string;
  let otherCookie: string;
  const get = async (url: string, as = cookie) =>
    (await panel.h.request('GET', url, { headers: { cookie: as } })).body as string;
  const noticeOf = async (url: string, as = cookie) => NOTICE.exec(await get(url, as))?.[1];

  beforeAll(async () => {
    const { h } = panel;
    const sessionOf = async (credits: number) =>
      `${SESSION_COOKIE}=${await createSession(h.ctx.db.kysely, 'account', (await h.createAccount(credits)).id, 1)}`;
    [cookie, otherCookie] = [await sessionOf(10), await sessionOf(10)];
  });
  /** Sends from the Send page in sandbox; the address of the page it redirects to. */
  async function sendTwo(): Promise<string> {
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await get('/panel/send'))![1];
    const form = { _csrf: csrf, numbers: '5512340001, 5512340002', message: 'Hola', sandbox: '1' };
    const reply = await panel.h.request('POST', '/panel/send/submit', { headers: { cookie }, form });
    expect(reply.status).toBe(303);
    return reply.headers.location as string;
  }

  it('shows the notice and the count an action left', async () => {
    const location = await sendTwo();
    expect(await noticeOf(location)).toBe('Campaña aceptada: 2 mensajes.');
  });

  it("shows no notice a link made up: other words, text for a count, or a signed notice edited or another person's", async () => {
    expect(
      await noticeOf('/panel/send?done=sent_ok&count=Llama%20al%205512345678%20para%20recibir%20tus'),
    ).toBeUndefined();
    expect(await noticeOf('/panel/send?done=sent_ok&count=2')).toBeUndefined();
    expect(await noticeOf('/panel/overview?done=password_changed')).toBeUndefined();
    expect(await noticeOf('/panel/overview?done=signin_wrong')).toBeUndefined();
    const location = await sendTwo();
    expect(await noticeOf(location.replace('count=2', 'count=2000'))).toBeUndefined();
    expect(await noticeOf(location.replace('count=2', 'count=-1'))).toBeUndefined();
    expect(await noticeOf(location.replace('done=sent_ok', 'done=transferred'))).toBeUndefined();
    expect(await noticeOf(location, otherCookie)).toBeUndefined();
  });
});

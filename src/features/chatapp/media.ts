import ipaddr from 'ipaddr.js';

export const MESSAGE_TYPES = ['text', 'image', 'video', 'audio', 'document'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];
export type MediaType = Exclude<MessageType, 'text'>;

/** The spec's accepted file extensions per media type. */
export const MEDIA_EXTENSIONS: Record<MediaType, readonly string[]> = {
  image: ['jpg', 'jpeg', 'png', 'svg', 'webp'],
  video: ['mp4'],
  audio: ['ogg', 'amr', '3gp', 'aac', 'mpeg'],
  document: ['pdf', 'doc', 'docx', 'pptx', 'xlsx', 'xls', 'csv'],
};

/**
 * Why a media message's URL is refused, or null when it is acceptable:
 * whatsapp_10 not a public HTTPS URL (other scheme, credentials, loopback,
 * private or reserved address, single-label or .local/.localhost host);
 * whatsapp_12 it carries a query string or a fragment;
 * whatsapp_11 its path does not end in an accepted extension of the type.
 * No DNS lookup: the carrier fetches the file, we only refuse what is
 * certainly not public.
 */
export function mediaUrlProblem(type: MediaType, raw: string): 'whatsapp_10' | 'whatsapp_11' | 'whatsapp_12' | null {
  if (/\s/.test(raw)) return 'whatsapp_10';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'whatsapp_10';
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || !isPublicHost(url.hostname))
    return 'whatsapp_10';
  if (raw.includes('?') || raw.includes('#')) return 'whatsapp_12';
  const file = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  const dot = file.lastIndexOf('.');
  const extension = dot > 0 ? file.slice(dot + 1).toLowerCase() : '';
  return MEDIA_EXTENSIONS[type].includes(extension) ? null : 'whatsapp_11';
}

function isPublicHost(hostname: string): boolean {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (ipaddr.isValid(host)) return ipaddr.process(host).range() === 'unicast';
  const name = host.toLowerCase().replace(/\.$/, '');
  if (!name.includes('.')) return false;
  return !/\.(localhost|local|internal|localdomain|home\.arpa)$/.test(name);
}

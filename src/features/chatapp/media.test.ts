import { describe, expect, it } from 'vitest';
import { mediaUrlProblem, type MediaType } from './media.js';

describe('chat-app media URL rules', () => {
  it.each<[MediaType, string, string | null]>([
    ['image', 'https://cdn.example.com/a/photo.jpg', null],
    ['image', 'https://cdn.example.com/photo.JPEG', null],
    ['image', 'https://cdn.example.com/logo.svg', null],
    ['image', 'https://cdn.example.com/p.webp', null],
    ['image', 'https://cdn.example.com/p.png', null],
    ['video', 'https://cdn.example.com/clip.mp4', null],
    ['audio', 'https://cdn.example.com/v.ogg', null],
    ['audio', 'https://cdn.example.com/v.3gp', null],
    ['audio', 'https://cdn.example.com/v.mpeg', null],
    ['document', 'https://files.example.org/r.pdf', null],
    ['document', 'https://files.example.org/data.csv', null],
    ['document', 'https://files.example.org:8443/data.xlsx', null],
    ['image', 'https://8.8.8.8/p.png', null],
    // not a public HTTPS URL
    ['image', 'http://cdn.example.com/photo.jpg', 'whatsapp_10'],
    ['image', 'ftp://cdn.example.com/photo.jpg', 'whatsapp_10'],
    ['image', 'photo.jpg', 'whatsapp_10'],
    ['image', 'https://user:pw@cdn.example.com/photo.jpg', 'whatsapp_10'],
    ['image', 'https://localhost/photo.jpg', 'whatsapp_10'],
    ['image', 'https://printer.local/photo.jpg', 'whatsapp_10'],
    ['image', 'https://intranet/photo.jpg', 'whatsapp_10'],
    ['image', 'https://127.0.0.1/photo.jpg', 'whatsapp_10'],
    ['image', 'https://2130706433/photo.jpg', 'whatsapp_10'],
    ['image', 'https://10.1.2.3/photo.jpg', 'whatsapp_10'],
    ['image', 'https://192.168.0.1/photo.jpg', 'whatsapp_10'],
    ['image', 'https://169.254.169.254/photo.jpg', 'whatsapp_10'],
    ['image', 'https://[::1]/photo.jpg', 'whatsapp_10'],
    ['image', 'https://[::ffff:10.0.0.1]/photo.jpg', 'whatsapp_10'],
    ['image', 'https://[fd00::1]/photo.jpg', 'whatsapp_10'],
    ['image', 'https://cdn.example.com/my photo.jpg', 'whatsapp_10'],
    // query string or fragment
    ['image', 'https://cdn.example.com/photo.jpg?size=2', 'whatsapp_12'],
    ['image', 'https://cdn.example.com/photo.jpg?', 'whatsapp_12'],
    ['image', 'https://cdn.example.com/photo.jpg#x', 'whatsapp_12'],
    // extension of another type, or none
    ['image', 'https://cdn.example.com/clip.mp4', 'whatsapp_11'],
    ['video', 'https://cdn.example.com/photo.jpg', 'whatsapp_11'],
    ['audio', 'https://cdn.example.com/song.mp3', 'whatsapp_11'],
    ['document', 'https://cdn.example.com/doc.txt', 'whatsapp_11'],
    ['document', 'https://cdn.example.com/pdf', 'whatsapp_11'],
    ['document', 'https://cdn.example.com/files.pdf/', 'whatsapp_11'],
    ['image', 'https://cdn.example.com/.png', 'whatsapp_11'],
  ])('%s %s → %s', (type, url, expected) => {
    expect(mediaUrlProblem(type, url)).toBe(expected);
  });
});

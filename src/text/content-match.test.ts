import { describe, expect, it } from 'vitest';
import { growthRatio } from '../../test/helpers/growth.js';
import { ContentMatcher, filterDomain, filterWord, readText } from './content-match.js';

const matcher = (rules: Array<{ word?: string; domain?: string }>) =>
  new ContentMatcher(
    rules.map((r, i) => ({
      id: i + 1,
      action: 'block',
      word: r.word === undefined ? null : filterWord(r.word),
      domain: r.domain === undefined ? null : filterDomain(r.domain),
    })),
  );
const ids = (m: ContentMatcher, text: string) => m.matches(readText(text)).map((r) => r.id);

describe('content filters: words, phrases and domains after the keywords’ folding', () => {
  it('keeps a filter in its folded form, and refuses what is no word or no host name', () => {
    expect(filterWord('  Cuénta  BLOQUEADA! ')).toBe('cuenta bloqueada');
    expect(filterWord('ＢＢＶＡ')).toBe('bbva');
    expect(filterWord('¡!')).toBeNull();
    expect(filterWord('a b c d e f g h i j k')).toBeNull();
    expect(filterWord('x'.repeat(101))).toBeNull();
    expect(filterDomain('BBVA-MX.Example.')).toBe('bbva-mx.example');
    for (const bad of ['localhost', 'https://a.example', 'a.example/login', 'a..example', '-a.example', 'a b.example'])
      expect([bad, filterDomain(bad)]).toEqual([bad, null]);
  });

  it('matches whole words in a row, whatever accents, width, case and zero-width characters', () => {
    const m = matcher([{ word: 'cuenta bloqueada' }, { word: 'premio' }]);
    expect(ids(m, 'Su CUENTA BLOQUEADA')).toEqual([1]);
    expect(ids(m, 'su cuénta\u200b bloqueáda')).toEqual([1]);
    expect(ids(m, 'ｃｕｅｎｔａ, bloqueada.')).toEqual([1]);
    expect(ids(m, 'Ganaste un PREMIO y tu cuenta bloqueada')).toEqual([1, 2]);
    expect(ids(m, 'cuenta desbloqueada')).toEqual([]);
    expect(ids(m, 'premios')).toEqual([]);
    expect(ids(m, 'bloqueada cuenta')).toEqual([]);
  });

  it('matches a domain and its subdomains in a URL or bare, not a longer domain', () => {
    const m = matcher([{ domain: 'bbva-mx.example' }]);
    expect(ids(m, 'Ingrese a https://BBVA-MX.example/login')).toEqual([1]);
    expect(ids(m, 'ingrese a secure.bbva-mx.example…')).toEqual([1]);
    expect(ids(m, 'www.bbva\u200b-mx.example')).toEqual([1]);
    expect(ids(m, 'mail: soporte@bbva-mx.example.')).toEqual([1]);
    expect(ids(m, 'bbva-mx.example.org')).toEqual([]);
    expect(ids(m, 'notbbva-mx.example')).toEqual([]);
    expect(ids(m, 'bbva mx example')).toEqual([]);
  });

  it('takes time linear in the text, whatever it holds', async () => {
    const m = matcher([{ word: 'a a a a a a a a a b' }, { domain: 'a.example' }]);
    for (const worst of [
      (n: number) => 'a '.repeat(n / 2),
      (n: number) => 'a.'.repeat(n / 2),
      (n: number) => 'a-'.repeat(n / 2),
    ])
      expect(await growthRatio((s) => m.matches(readText(s)), worst)).toBeLessThan(3);
  }, 120_000);
});

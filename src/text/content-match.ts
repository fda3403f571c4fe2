/**
 * Content filters' matching: plain words, phrases and URL domains, never a pattern a user wrote. A text and a filter
 * go through the same form as keywords (src/text/keyword.ts: compatibility forms folded, invisible format characters
 * dropped, accents dropped, one case); a word or phrase matches whole words in a row (`bloqueada` does not match
 * `desbloqueada`), a domain matches itself and its subdomains wherever a host name appears (with or without
 * `https://`). Every step scans the text once: linear in its length whatever it holds.
 */

/** The longest word or phrase a filter may be (characters), and the most words it holds. */
export const MAX_FILTER_WORD = 100;
export const MAX_PHRASE_WORDS = 10;
/** The longest host name (RFC 1035). */
export const MAX_DOMAIN = 253;

/** NFKC, no format characters (zero-width…), no accents, lower case. */
function folded(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/\p{Cf}/gu, '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase();
}

const isWordChar = (ch: string): boolean => /[\p{L}\p{N}]/u.test(ch);

/** The runs of letters and digits of a folded text, in order. */
function wordsOf(text: string): string[] {
  const words: string[] = [];
  let current = '';
  for (const ch of text) {
    if (isWordChar(ch)) current += ch;
    else if (current !== '') {
      words.push(current);
      current = '';
    }
  }
  if (current !== '') words.push(current);
  return words;
}

/** Each host name of a folded text (runs of letters, digits, `-` and `.` holding a dot) and every parent domain of it. */
function hostsOf(text: string): Set<string> {
  const hosts = new Set<string>();
  let run = '';
  const flush = () => {
    const labels = run.split('.').filter((l) => l !== '');
    for (let i = 0; i + 1 < labels.length; i++)
      hosts.add(
        labels
          .slice(i)
          .join('.')
          .replace(/^-+|-+$/g, ''),
      );
    run = '';
  };
  for (const ch of text) {
    if (isWordChar(ch) || ch === '-' || ch === '.') {
      if (run.length < MAX_DOMAIN) run += ch;
    } else if (run !== '') flush();
  }
  if (run !== '') flush();
  return hosts;
}

/** A word or phrase as a filter holds it (its words joined by one space), or null when it has no word or is too long. */
export function filterWord(raw: string): string | null {
  if (raw.length > MAX_FILTER_WORD) return null;
  const words = wordsOf(folded(raw));
  return words.length === 0 || words.length > MAX_PHRASE_WORDS ? null : words.join(' ');
}

/** A domain as a filter holds it (`bbva-mx.example`), or null when it is not a host name of at least two labels. */
export function filterDomain(raw: string): string | null {
  const domain = folded(raw.trim()).replace(/\.$/, '');
  if (domain.length === 0 || domain.length > MAX_DOMAIN) return null;
  const labels = domain.split('.');
  if (labels.length < 2) return null;
  const label = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;
  return labels.every((l) => label.test(l)) ? domain : null;
}

/** A text read once for every filter set it is checked against. */
export interface ReadText {
  words: string[];
  hosts: Set<string>;
}

export const readText = (text: string): ReadText => {
  const form = folded(text);
  return { words: wordsOf(form), hosts: hostsOf(form) };
};

export interface ContentRule<A extends string = string> {
  id: number;
  action: A;
  /** filterWord's form, or null. */
  word: string | null;
  /** filterDomain's form, or null. */
  domain: string | null;
}

/** A set of filters, indexed: words by their first word, domains by name. */
export class ContentMatcher<A extends string = string> {
  private readonly byFirstWord = new Map<string, Array<{ rule: ContentRule<A>; words: string[] }>>();
  private readonly byDomain = new Map<string, Array<ContentRule<A>>>();

  constructor(rules: Iterable<ContentRule<A>>) {
    for (const rule of rules) {
      if (rule.word !== null) {
        const words = rule.word.split(' ');
        const list = this.byFirstWord.get(words[0]) ?? [];
        list.push({ rule, words });
        this.byFirstWord.set(words[0], list);
      }
      if (rule.domain !== null) this.byDomain.set(rule.domain, [...(this.byDomain.get(rule.domain) ?? []), rule]);
    }
  }

  get empty(): boolean {
    return this.byFirstWord.size === 0 && this.byDomain.size === 0;
  }

  /** The filters the text matches, each once, in id order. */
  matches(text: ReadText): Array<ContentRule<A>> {
    const found = new Map<number, ContentRule<A>>();
    if (this.byFirstWord.size > 0)
      text.words.forEach((word, at) => {
        for (const { rule, words } of this.byFirstWord.get(word) ?? [])
          if (words.every((w, k) => text.words[at + k] === w)) found.set(rule.id, rule);
      });
    if (this.byDomain.size > 0)
      for (const host of text.hosts) for (const rule of this.byDomain.get(host) ?? []) found.set(rule.id, rule);
    return [...found.values()].sort((a, b) => a.id - b.id);
  }
}

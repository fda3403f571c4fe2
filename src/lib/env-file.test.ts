import { describe, expect, it } from 'vitest';
import { leadingEnvFiles, parseEnvironmentFile } from './env-file.js';

// The rules of systemd.exec(5), EnvironmentFile=: what the unit's process gets from each line.
describe('parseEnvironmentFile reads a file as systemd reads EnvironmentFile=', () => {
  it('keeps what a shell would expand, cut or run: &, $$, ;, # and backquotes inside a value', () => {
    const vars = parseEnvironmentFile(
      [
        'DATABASE_URL=postgres://app:pa$$w0rd@db:5432/app?sslmode=require&application_name=mensajero',
        'MENSAJERO_SECRET=abc#def;ghi',
        'CMD=`id` $(id) $HOME',
      ].join('\n'),
    );
    expect(vars).toEqual({
      DATABASE_URL: 'postgres://app:pa$$w0rd@db:5432/app?sslmode=require&application_name=mensajero',
      MENSAJERO_SECRET: 'abc#def;ghi',
      CMD: '`id` $(id) $HOME',
    });
  });

  it('skips comments, blank lines, lines without = and invalid names (export NAME= included)', () => {
    const text = '# a comment\n; another\n\n   \nnot an assignment\nexport A=1\n1X=2\nB-C=3\n  KEY  =  value  \n';
    expect(parseEnvironmentFile(text)).toEqual({ KEY: 'value' });
  });

  it('unquoted: outer blanks dropped, inner kept, \\X is X, a final \\ joins the next line, later quotes kept', () => {
    expect(parseEnvironmentFile('A= two  words \t\nB=a\\ b\\\\c\\$d\nC=first\\\nsecond\nD=x"y"\'z\'\n')).toEqual({
      A: 'two  words',
      B: 'a b\\c$d',
      C: 'firstsecond',
      D: 'x"y"\'z\'',
    });
  });

  it('single quotes: verbatim, across lines; double quotes: \\ keeps " \\ ` $ only; pieces join', () => {
    expect(parseEnvironmentFile(`A='a $b \\n "c"\nd'\nB="a \\"b\\" \\$c \\n d\\\ne"\nC='x'"y"  z\nD=""\n`)).toEqual({
      A: 'a $b \\n "c"\nd',
      B: 'a "b" $c \\n de',
      C: 'xyz',
      D: '',
    });
  });

  it('the last of a name wins; CRLF line ends and a final line without a newline are read', () => {
    expect(parseEnvironmentFile('A=1\r\nA=2\r\nB=3')).toEqual({ A: '2', B: '3' });
  });
});

describe('leadingEnvFiles', () => {
  it('takes --env-file FILE and --env-file=FILE before the command only', () => {
    expect(leadingEnvFiles(['--env-file', '/a', '--env-file=/b', 'doctor', '--env-file', '/c'])).toEqual({
      files: ['/a', '/b'],
      consumed: 3,
    });
    expect(leadingEnvFiles(['doctor'])).toEqual({ files: [], consumed: 0 });
    expect(leadingEnvFiles(['--env-file'])).toEqual({ files: [], consumed: 0 });
  });
});

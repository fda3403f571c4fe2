import { readFileSync } from 'node:fs';

/**
 * The variables of an environment file read as systemd reads a unit's `EnvironmentFile=` (systemd.exec(5), the
 * state machine of systemd's env-file.c), so that `mensajero --env-file FILE` sees what the service sees. Not shell
 * rules: no `$` expansion, `&`, `;` or `#` inside a value are characters, `export NAME=` is no assignment. Nor
 * Node's parser (util.parseEnv), which cuts an unquoted value at `#` and keeps backslashes systemd removes.
 *
 * - `#` or `;` first on a line starts a comment; a line without `=` is ignored; so is an invalid name (systemd
 *   logs it), which must be letters, digits and `_`, not starting with a digit.
 * - Unquoted: leading and trailing blanks dropped, inner ones kept; `\X` is X; a `\` at the end of a line joins
 *   the next; quotes after the first character are kept.
 * - `'…'`: verbatim, across lines. `"…"`: across lines, `\` keeps a following `"`, `\`, `` ` `` or `$`, joins
 *   lines before a newline, and is kept with any other character. Pieces follow each other (`'a'"b"` is `ab`).
 */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  type State = 'preKey' | 'key' | 'preValue' | 'value' | 'valueEscape' | 'single' | 'double' | 'doubleEscape';
  let state: State | 'comment' | 'commentEscape' = 'preKey';
  let key = '';
  let value = '';
  /** Where trailing blanks of the key, or of an unquoted value, start (-1: none). */
  let keyBlank = -1;
  let valueBlank = -1;
  const push = () => {
    const name = keyBlank === -1 ? key : key.slice(0, keyBlank);
    const v = valueBlank === -1 ? value : value.slice(0, valueBlank);
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) vars[name] = v;
    key = '';
    value = '';
  };
  const newline = (c: string) => c === '\n' || c === '\r';
  const blank = (c: string) => c === ' ' || c === '\t' || newline(c);
  for (const c of text.replace(/^\uFEFF/, '')) {
    switch (state) {
      case 'preKey':
        if (c === '#' || c === ';') state = 'comment';
        else if (!blank(c)) {
          state = 'key';
          key = c;
          keyBlank = -1;
        }
        break;
      case 'key':
        if (newline(c)) {
          state = 'preKey';
          key = '';
        } else if (c === '=') {
          state = 'preValue';
          valueBlank = -1;
        } else {
          if (!blank(c)) keyBlank = -1;
          else if (keyBlank === -1) keyBlank = key.length;
          key += c;
        }
        break;
      case 'preValue':
        if (newline(c)) {
          state = 'preKey';
          push();
        } else if (c === "'") state = 'single';
        else if (c === '"') state = 'double';
        else if (c === '\\') state = 'valueEscape';
        else if (!blank(c)) {
          state = 'value';
          value += c;
        }
        break;
      case 'value':
        if (newline(c)) {
          state = 'preKey';
          push();
        } else if (c === '\\') {
          state = 'valueEscape';
          valueBlank = -1;
        } else {
          if (!blank(c)) valueBlank = -1;
          else if (valueBlank === -1) valueBlank = value.length;
          value += c;
        }
        break;
      case 'valueEscape':
        state = 'value';
        if (!newline(c)) value += c;
        break;
      case 'single':
        if (c === "'") state = 'preValue';
        else value += c;
        break;
      case 'double':
        if (c === '"') state = 'preValue';
        else if (c === '\\') state = 'doubleEscape';
        else value += c;
        break;
      case 'doubleEscape':
        state = 'double';
        if ('"\\`$'.includes(c)) value += c;
        else if (c !== '\n') value += '\\' + c;
        break;
      case 'comment':
        if (c === '\\') state = 'commentEscape';
        else if (newline(c)) state = 'preKey';
        break;
      case 'commentEscape':
        state = 'comment';
        break;
    }
  }
  if (state !== 'preKey' && state !== 'key' && state !== 'comment' && state !== 'commentEscape') push();
  return vars;
}

/** Reads FILE with parseEnvironmentFile; an error names the file (never a value). */
export function readEnvironmentFile(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`--env-file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
      cause: err,
    });
  }
  return parseEnvironmentFile(text);
}

/**
 * The files of `--env-file FILE` (or `--env-file=FILE`, repeatable) at the head of a command line, and how many
 * arguments they take: the CLI reads them before anything reads the environment. A last `--env-file` without its
 * file is left to the option parser to report.
 */
export function leadingEnvFiles(args: readonly string[]): { files: string[]; consumed: number } {
  const files: string[] = [];
  let i = 0;
  for (;;) {
    const arg = args[i];
    if (arg === '--env-file' && args[i + 1] !== undefined) {
      files.push(args[i + 1]!);
      i += 2;
    } else if (arg?.startsWith('--env-file=')) {
      files.push(arg.slice('--env-file='.length));
      i += 1;
    } else return { files, consumed: i };
  }
}

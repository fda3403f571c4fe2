import { describe, expect, it } from 'vitest';
import { csvCell } from '../text/csv-cell.js';

describe('CSV cells of the panel exports', () => {
  it.each([
    ['Hola', 'Hola'],
    ['5512345678', '5512345678'],
    ['', ''],
    ['a,b', '"a,b"'],
    ['dice "hola"', '"dice ""hola"""'],
    ['uno\r\ndos', '"uno\r\ndos"'],
    // Spreadsheets in locales that separate with ';' (Colombia, Spain) split here.
    ['a;b', '"a;b"'],
    ['a\tb', '"a\tb"'],
  ])('%j → %j', (value, cell) => expect(csvCell(value)).toBe(cell));

  it.each([
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    // A formula after leading whitespace is still a formula to a spreadsheet.
    [' =HYPERLINK("http://x")', `"' =HYPERLINK(""http://x"")"`],
    ['   +1', "'   +1"],
    ['\u00a0@cmd', "'\u00a0@cmd"],
    ['\t=1', `"'\t=1"`],
    ['\r=1', `"'\r=1"`],
    [' hola', ' hola'],
  ])('%j is neutralised as %j', (value, cell) => expect(csvCell(value)).toBe(cell));
});

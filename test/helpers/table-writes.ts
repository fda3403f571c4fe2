/* What the table-owners check reads of src/, parsed with the TypeScript compiler: which module declares each table
   (its tables.ts or *-tables.ts adding them to `Database`) and which tables each file writes. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** A write the parse could not name: a table given by a variable, or raw SQL with the table as a substitution. */
export const UNNAMED = '(unnamed)';

export interface Write {
  file: string;
  line: number;
  table: string;
  how: 'builder' | 'sql';
}

const BUILDER_WRITES = new Set(['insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto']);

// The SQL text of a `sql` template, with each substitution as NUL. `update x set` only (not `do update set`,
// `for update`); `insert or replace into` and quoted names too.
const SQL_WRITES = [
  /\binsert\s+(?:or\s+\w+\s+)?into\s+"?([\w\0]+)/gi,
  /\bupdate\s+"?([\w\0]+)"?\s+set\b/gi,
  /\bdelete\s+from\s+"?([\w\0]+)/gi,
];

/** Every .ts file under `dir` but tests, as paths relative to `root`. */
export function sourceFiles(root: string, dir = 'src'): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The module a file of src/ belongs to: its top folder, or under src/features/ the feature's folder. */
export function moduleOf(file: string): string {
  const parts = file.replace(/^src\//, '').split('/');
  if (parts[0] === 'features' && parts.length > 2) return `features/${parts[1]}`;
  return parts.length === 1 ? parts[0]!.replace(/\.ts$/, '') : parts[0]!;
}

const parse = (file: string, text: string) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);

function visit(node: ts.Node, fn: (node: ts.Node) => void) {
  fn(node);
  node.forEachChild((child) => visit(child, fn));
}

/**
 * The tables a file adds to `Database` by declaration merging: the properties of the interfaces that
 * `interface Database extends …` names, read from the same file (src/db/schema.ts declares the interface itself).
 */
export function declaredTables(file: string, text: string): string[] {
  const source = parse(file, text);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  const databases: ts.InterfaceDeclaration[] = [];
  visit(source, (node) => {
    if (!ts.isInterfaceDeclaration(node)) return;
    if (node.name.text === 'Database') databases.push(node);
    else interfaces.set(node.name.text, node);
  });
  const tables = (decl: ts.InterfaceDeclaration): string[] => [
    ...decl.members.flatMap((m) => (m.name && ts.isIdentifier(m.name) ? [m.name.text] : [])),
    ...(decl.heritageClauses ?? []).flatMap((clause) =>
      clause.types.flatMap((type) => {
        const named = ts.isIdentifier(type.expression) ? interfaces.get(type.expression.text) : undefined;
        if (!named)
          throw new Error(`${file}: Database extends ${type.expression.getText()}, not declared in this file`);
        return tables(named);
      }),
    ),
  ];
  return databases.flatMap(tables);
}

function sqlText(template: ts.TemplateLiteral): string {
  if (ts.isNoSubstitutionTemplateLiteral(template)) return template.text;
  return template.head.text + template.templateSpans.map((span) => '\0' + span.literal.text).join('');
}

function tablesInSql(text: string): string[] {
  return SQL_WRITES.flatMap((pattern) =>
    [...text.matchAll(pattern)].map((m) => (m[1]!.includes('\0') ? UNNAMED : m[1]!.toLowerCase())),
  );
}

/** The tables a builder's argument names: `'messages'`, `'messages as m'`, or a list of them. */
function tablesOfArgument(arg: ts.Expression | undefined): string[] {
  if (arg && ts.isStringLiteralLike(arg)) return [arg.text.split(/\s+as\s+/)[0]!.trim()];
  if (arg && ts.isArrayLiteralExpression(arg)) return arg.elements.flatMap((e) => tablesOfArgument(e));
  return [UNNAMED];
}

/** Every write of a file: Kysely's insertInto/replaceInto/updateTable/deleteFrom/mergeInto, and INSERT, UPDATE and
 *  DELETE in `sql` templates and `sql.raw` texts. */
export function writesOf(file: string, text: string): Write[] {
  const source = parse(file, text);
  const writes: Write[] = [];
  const add = (node: ts.Node, how: Write['how'], tables: string[]) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    for (const table of tables) writes.push({ file, line, table, how });
  };
  visit(source, (node) => {
    if (ts.isTaggedTemplateExpression(node) && node.tag.getText() === 'sql') {
      add(node, 'sql', tablesInSql(sqlText(node.template)));
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const name = node.expression.name.text;
      if (BUILDER_WRITES.has(name)) add(node, 'builder', tablesOfArgument(node.arguments[0]));
      else if (name === 'raw' && node.expression.expression.getText() === 'sql') {
        const arg = node.arguments[0];
        const text = arg && (ts.isStringLiteralLike(arg) ? arg.text : ts.isTemplateExpression(arg) ? sqlText(arg) : '');
        add(node, 'sql', tablesInSql(text ?? ''));
      }
    }
  });
  return writes;
}

/** Each table → the module whose tables file declares it (a table declared twice is an error), and those files. */
export function tableOwners(root: string, files: string[]): { owners: Map<string, string>; declaring: string[] } {
  const owners = new Map<string, string>();
  const declaring: string[] = [];
  for (const file of files) {
    const tables = declaredTables(file, readFileSync(join(root, file), 'utf8'));
    if (tables.length > 0) declaring.push(file);
    for (const table of tables) {
      const owner = moduleOf(file);
      if (owners.has(table)) throw new Error(`${table} declared by ${owners.get(table)} and ${owner}`);
      owners.set(table, owner);
    }
  }
  return { owners, declaring };
}

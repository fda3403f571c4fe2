/** Nodes that hold bound values only (the rows of an insert, an IN list): no query inside. */
const VALUES_ONLY = new Set(['ValueNode', 'PrimitiveValueListNode']);

/**
 * Whether `test` holds for an operation node anywhere in a Kysely query
 * (subqueries included). Walks operation nodes and their lists only, never
 * into bound values: a plugin that copies the whole tree can skip the
 * queries it has nothing to change in.
 */
export function anyQueryNode(node: unknown, test: (node: { kind: string }) => boolean): boolean {
  if (Array.isArray(node)) return node.some((n) => anyQueryNode(n, test));
  if (node === null || typeof node !== 'object') return false;
  const kind = (node as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || VALUES_ONLY.has(kind)) return false;
  if (test(node as { kind: string })) return true;
  for (const value of Object.values(node))
    if (typeof value === 'object' && value !== null && anyQueryNode(value, test)) return true;
  return false;
}

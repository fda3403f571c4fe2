import {
  BinaryOperationNode,
  OperationNodeTransformer,
  OperatorNode,
  PrimitiveValueListNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { anyQueryNode } from './query-nodes.js';

/** Lists up to this length keep their own statement: the common short ones cost no extra values. */
const EXACT_UP_TO = 8;

/** The length a list of `n` values is bound with: n itself when short, else the next power of two. */
export function inListSize(n: number): number {
  return n <= EXACT_UP_TO ? n : 2 ** Math.ceil(Math.log2(n));
}

function isInList(node: OperationNode): node is BinaryOperationNode & { rightOperand: PrimitiveValueListNode } {
  if (!BinaryOperationNode.is(node) || !OperatorNode.is(node.operator)) return false;
  const op = node.operator.operator;
  return (op === 'in' || op === 'not in') && PrimitiveValueListNode.is(node.rightOperand);
}

const needsPadding = (node: PrimitiveValueListNode) => inListSize(node.values.length) !== node.values.length;

/** Whether an IN list anywhere in the query (subqueries included) has a length that is not one of the sizes. */
const hasUnevenInList = (node: unknown) =>
  anyQueryNode(
    node,
    (n) =>
      isInList(n as OperationNode) && needsPadding((n as BinaryOperationNode).rightOperand as PrimitiveValueListNode),
  );

class InListTransformer extends OperationNodeTransformer {
  protected override transformBinaryOperation(node: BinaryOperationNode): BinaryOperationNode {
    if (!isInList(node) || !needsPadding(node.rightOperand)) return super.transformBinaryOperation(node);
    const { values } = node.rightOperand;
    const padded = [...values, ...Array<unknown>(inListSize(values.length) - values.length).fill(values.at(-1))];
    return BinaryOperationNode.create(
      this.transformNode(node.leftOperand),
      node.operator,
      PrimitiveValueListNode.create(padded),
    );
  }
}

/**
 * Binds IN lists of a few lengths only: a longer list is padded to the next
 * power of two by repeating its last value (the set it matches is the same).
 * SQLite statements are cached by their SQL text, and a list of every length
 * from 1 to 1,000 (the hand-off rounds, the receipt and dispatch batches)
 * made one statement per length: up to 500 cached, each keeping its compiled
 * program in native memory (some 150 KB for 500 values).
 */
export class InListSizesPlugin implements KyselyPlugin {
  private readonly transformer = new InListTransformer();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    // The transformer copies every node of the query: most queries have no long IN list and skip it.
    return hasUnevenInList(args.node) ? this.transformer.transformNode(args.node) : args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

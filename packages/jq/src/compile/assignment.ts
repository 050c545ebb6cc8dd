import { Unsupported } from './ast';
import type { AssignOp, Node } from './ast';
import { parseJq } from './parser';

/** An assignment whose value is the expression's output, with the fix when one operator is the likely intent. */
export interface TopLevelAssignment {
  op: AssignOp;
  /** The operator's offset in the expression. */
  at: number;
  /** The expression with the operator replaced by the one probably meant (`=` -> `==`, `|=` -> `|`, `//=` -> `//`); absent when there is no single guess. */
  suggestion?: string;
}

const MEANT: Partial<Record<AssignOp, string>> = { '=': '==', '|=': '|', '//=': '//' };

/**
 * The assignment at the top level of `expr` (the root, or the last stage of a
 * pipe or `as` binding), or null. An assignment outputs the updated input, so
 * as a condition it is always truthy: `.action = "opened"` matches every event.
 * Only expressions inside the parser's subset are looked at (null otherwise);
 * call it for expressions jq compiles.
 */
export function topLevelAssignment(expr: string, varNames: readonly string[] = []): TopLevelAssignment | null {
  let node: Node;
  try {
    node = parseJq(expr, varNames).node;
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
  for (;;) {
    if (node.t === 'pipe') node = node.right;
    else if (node.t === 'bind') node = node.body;
    else break;
  }
  if (node.t !== 'assign') return null;
  const meant = MEANT[node.op];
  const found: TopLevelAssignment = { op: node.op, at: node.at };
  if (meant !== undefined) found.suggestion = expr.slice(0, node.at) + meant + expr.slice(node.at + node.op.length);
  return found;
}

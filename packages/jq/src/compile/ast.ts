/** The jq subset the compiler understands, as a tree. Anything else never becomes a tree. */
export type Node =
  | { t: 'identity' }
  | { t: 'literal'; value: null | boolean | number | string }
  | { t: 'emptyArray' }
  | { t: 'interp'; parts: (string | Node)[] }
  | { t: 'index'; target: Node; key: Node; opt: boolean }
  | { t: 'iterate'; target: Node; opt: boolean }
  | { t: 'try'; body: Node }
  | { t: 'pipe'; left: Node; right: Node }
  | { t: 'comma'; left: Node; right: Node }
  | { t: 'binop'; op: BinOp; left: Node; right: Node }
  | { t: 'and'; left: Node; right: Node }
  | { t: 'or'; left: Node; right: Node }
  | { t: 'alt'; left: Node; right: Node }
  | { t: 'neg'; body: Node }
  | { t: 'if'; cond: Node; then: Node; else: Node }
  | { t: 'collect'; body: Node }
  | { t: 'object'; entries: { key: Node; value: Node }[] }
  | { t: 'var'; slot: number }
  | { t: 'bind'; source: Node; slot: number; body: Node }
  | { t: 'call'; name: string; args: Node[] }
  /** `=`, `|=`, `+=`, ...: parsed so a condition that assigns can be named; never compiled (jq-wasm runs it). `at` is the operator's offset. */
  | { t: 'assign'; op: AssignOp; at: number; left: Node; right: Node };

export type AssignOp = '=' | '|=' | '+=' | '-=' | '*=' | '/=' | '%=' | '//=';

export type BinOp = '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=';

/** Thrown by the parser for anything outside the subset; the expression then runs on jq-wasm. */
export class Unsupported extends Error {}

type Obj = Record<string, unknown>;

/** The builders document.ts describes its operations with (passed in, so this file does not import document.ts). */
export interface PathBuilders {
  op(role: 'reader' | 'operator' | 'admin', summary: string, responses: Obj, extra?: Obj): Obj;
  answer(description: string, schema: Obj): Obj;
  fail(...codes: number[]): Obj;
  ref(name: string): Obj;
  pathParam(name: string, description: string, schema?: Obj): Obj;
  body(schema: Obj): Obj;
}

import { Type } from '@sinclair/typebox';

/** What a removal answers. */
export const Removed = Type.Object(
  {
    removed: Type.Unsafe<true>({ type: 'boolean', enum: [true] }),
    name: Type.Optional(Type.String()),
    topic: Type.Optional(Type.String()),
    id: Type.Optional(Type.String()),
  },
  { $id: 'Removed' },
);

/** `created` of a write that answers 201 when new and 200 when it replaced (OpenAPI 3.0 has no `const`). */
export const Created = <B extends boolean>(value: B) => Type.Unsafe<B>({ type: 'boolean', enum: [value] });

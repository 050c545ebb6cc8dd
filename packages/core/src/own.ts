/**
 * Sets `o[key] = value` as an own, enumerable data property whatever the key.
 * A plain assignment with the key `__proto__` calls Object.prototype's setter
 * instead (it replaces the object's prototype, or is ignored for a
 * non-object), so wherever a key comes from data — a payload, a header, a jq
 * object constructor — this is the write to use. Other keys take the fast path.
 */
export function setOwn<T>(o: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}

/** Copies every own enumerable key of `from` onto `to` with `setOwn` (Object.assign, without the `__proto__` setter). */
export function assignOwn<T>(to: Record<string, T>, from: Readonly<Record<string, T>>): Record<string, T> {
  for (const k of Object.keys(from)) setOwn(to, k, from[k] as T);
  return to;
}

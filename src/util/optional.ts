/**
 * `{ [key]: value }` when the value is there, `{}` otherwise: an optional field spread into
 * an object without writing `undefined` into it (`exactOptionalPropertyTypes` tells the two
 * apart, and so do zod and JSON).
 */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** `{ [key]: value }`, or `{}` when the value is undefined (`exactOptionalPropertyTypes`). */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

// An OpenAPI schema made strict for tests: additionalProperties false on every object schema that
// lists its properties, so an answer with a field its schema does not describe fails validation.
export function closeSchema(node: any): any {
  if (Array.isArray(node)) return node.map(closeSchema);
  if (node === null || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, closeSchema(s)])) : closeSchema(v)]));
  if (out.properties && out.additionalProperties === undefined && out.patternProperties === undefined) out.additionalProperties = false;
  return out;
}

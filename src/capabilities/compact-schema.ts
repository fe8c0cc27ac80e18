// A capability's JSON Schema as an MCP tool listing carries it: exact, but small. An agent host puts
// the whole tool list in the model's context on every turn, so what only a reader of the API
// reference needs stays in OpenAPI and llms.txt (the same schema with its prose), and here:
// - prose goes from the output schema (the tool's description and its guide resource say what it
//   answers; the input schema keeps its argument descriptions, which a model needs to call it), and
//   so do the output's bounds on values (patterns, lengths, ranges): it keeps every field, its type,
//   enums, nullability and which fields are always there, the shape a client reads; the server
//   writes the values, and OpenAPI and the guide keep their bounds;
// - a union of string constants is one `enum` (the same values, a third of the text); in an output
//   schema a vocabulary longer than MAX_LISTED_ENUM (an action's kinds, a token's risk flags) is a
//   string, its values listed in the tool's guide (gateway://tools/<tool>) and in OpenAPI;
// - a subschema met more than once is written once under `$defs` and referred to by `$ref`
//   (`#/$defs/<Name>`, local, which every client resolves and the MCP Inspector accepts);
// - in an output schema, an optional field whose shape is longer than MAX_OPTIONAL_SHAPE (a part only
//   some answers carry: decode_tx's compressedNfts, the parts of a decoded history item) is its bare type there, still typed: listed in
//   full it would cost every turn more than it tells; the guide and OpenAPI keep its shape.
// Pure: a plain JSON Schema in, a plain JSON Schema out.

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where a JSON Schema keeps subschemas: one schema, a list of them, or a map of them. */
const ONE = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties'];

/** Applies `f` to each direct subschema of `s`, with the name a definition made of it would take. */
function mapChildren(s: Json, f: (child: unknown, hint: string) => unknown, hint: string): Json {
  const out: Json = { ...s };
  for (const k of ONE) if (isObject(s[k])) out[k] = f(s[k], k === 'items' ? `${hint}Item` : hint);
  for (const k of LIST) if (Array.isArray(s[k])) out[k] = (s[k] as unknown[]).map((sub) => f(sub, hint));
  for (const k of MAP) {
    if (!isObject(s[k])) continue;
    out[k] = Object.fromEntries(Object.entries(s[k] as Json).map(([name, sub]) => [name, f(sub, name)]));
  }
  return out;
}

const ANNOTATIONS = ['description', 'examples', '$comment'];
/** Longest list of values an output schema spells out; a longer one is a string there, listed in the tool's guide. */
const MAX_LISTED_ENUM = 12;
/** Bounds on an answer's values: kept in an input schema (they tell a caller what is accepted), not in an output one. */
const VALUE_BOUNDS = ['pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'];
/** Examples go from every schema: the guide resource and the REST hints show them. */
const EXAMPLES = 'examples';
/** Longest compact shape an optional output field is listed with; a longer one is its bare type (see above). */
const MAX_OPTIONAL_SHAPE = 200;

/** Only the types of `schema`: an object's fields and a union's branches' shapes go, an array keeps its items' type. */
function bareType(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  if (Array.isArray(schema.anyOf)) return { anyOf: schema.anyOf.map(bareType) };
  if (schema.type === 'array' && isObject(schema.items)) return { type: 'array', items: bareType(schema.items) };
  if (schema.type === 'object') return { type: 'object' };
  return schema;
}

/** Each optional field of an output schema whose compact shape is longer than MAX_OPTIONAL_SHAPE as its bare type. */
function bareLargeOptional(schema: unknown, hint = 'Root'): unknown {
  if (!isObject(schema)) return schema;
  const s = mapChildren(schema, (child, h) => bareLargeOptional(child, h), hint);
  if (!isObject(s.properties)) return s;
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  const fields = Object.entries(s.properties as Json).map(([name, sub]) => [name, required.has(name) || JSON.stringify(sub).length <= MAX_OPTIONAL_SHAPE ? sub : bareType(sub)]);
  return { ...s, properties: Object.fromEntries(fields) };
}

/** Every string-constant union as an enum; prose and value bounds dropped unless `keepProse` (an input schema). Titles stay (they name definitions). */
function simplify(schema: unknown, keepProse: boolean, hint = 'Root', depth = 0): unknown {
  if (!isObject(schema)) return schema;
  let s: Json = { ...schema };
  delete s[EXAMPLES];
  // an argument's description says it once: not again on the branches of its union
  if (!keepProse || depth > 1) for (const k of ANNOTATIONS) delete s[k];
  if (!keepProse) for (const k of VALUE_BOUNDS) delete s[k];
  // a long vocabulary (an action's 33 kinds, a token's 24 risk flags) is the guide's to list: here a string
  if (!keepProse && Array.isArray(s.enum) && s.enum.length > MAX_LISTED_ENUM) delete s.enum;
  const branches = s.anyOf;
  if (Array.isArray(branches) && branches.length > 1 && branches.every((b) => isObject(b) && typeof b.const === 'string' && Object.keys(b).every((k) => k === 'const' || k === 'type'))) {
    const { anyOf: _branches, ...rest } = s;
    s = !keepProse && branches.length > MAX_LISTED_ENUM ? { ...rest, type: 'string' } : { ...rest, type: 'string', enum: branches.map((b) => (b as Json).const) };
  }
  return mapChildren(s, (child, h) => simplify(child, keepProse, h, depth + 1), hint);
}

/** A definition's name: its title, `<Def>OrNull` for a nullable definition, else after the property it was first met as. */
function nameOf(schema: Json, hint: string): string {
  if (typeof schema.title === 'string') return pascal(schema.title);
  const [first, second] = Array.isArray(schema.anyOf) ? (schema.anyOf as Json[]) : [];
  const ref = typeof first?.$ref === 'string' ? first.$ref.slice('#/$defs/'.length) : undefined;
  if ((schema.anyOf as unknown[] | undefined)?.length === 2 && second?.type === 'null') {
    if (ref) return `${ref}OrNull`;
    if (typeof first?.type === 'string' && Object.keys(first).length === 1) return `${pascal(first.type)}OrNull`;
  }
  return pascal(hint);
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1).replace(/[^A-Za-z0-9]/g, '');

/** Smallest subschema that could be worth a definition: a `$ref` is 19 characters and the name. */
const MIN_SHARED = 24;

interface Seen {
  count: number;
  name: string;
}

/** Counts each subschema (the root and `$defs` bodies' own roots aside) by its JSON text, with a name for it. */
function tally(schema: unknown, seen: Map<string, Seen>, hint: string, root: boolean): void {
  if (!isObject(schema)) return;
  if (!root) {
    const text = JSON.stringify(schema);
    if (text.length >= MIN_SHARED) {
      const entry = seen.get(text);
      if (entry) entry.count++;
      else seen.set(text, { count: 1, name: nameOf(schema, hint) });
    }
  }
  mapChildren(schema, (child, h) => (tally(child, seen, h, false), child), hint);
}

function replace(schema: unknown, text: string, ref: Json, root: boolean): unknown {
  if (!isObject(schema)) return schema;
  if (!root && JSON.stringify(schema) === text) return ref;
  return mapChildren(schema, (child) => replace(child, text, ref, false), '');
}

function withoutTitles(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const { title: _title, ...rest } = schema;
  return mapChildren(rest, (child) => withoutTitles(child), '');
}

/**
 * `schema` made compact for a tool listing: prose kept only when `keepProse` (input schemas), string
 * unions as enums, a large optional output field as its bare type, and each repeated subschema moved to `$defs`, largest savings first, until none
 * saves anything.
 */
export function compactSchema(schema: unknown, keepProse = false): Json {
  const simple = simplify(JSON.parse(JSON.stringify(schema)), keepProse);
  let root = (keepProse ? simple : bareLargeOptional(simple)) as Json;
  const defs: Record<string, unknown> = {};
  for (;;) {
    const seen = new Map<string, Seen>();
    tally(root, seen, 'Root', true);
    for (const body of Object.values(defs)) tally(body, seen, 'Root', true);
    let best: [string, Seen] | undefined;
    let bestSaving = 0;
    for (const entry of seen) {
      // each use gives way to a `$ref`; the definition is written once, under its name
      const { count, name } = entry[1];
      const saving = count * (entry[0].length - (19 + name.length)) - (name.length + 4 + entry[0].length);
      if (entry[1].count > 1 && saving > bestSaving) [best, bestSaving] = [entry, saving];
    }
    if (!best) break;
    const [text, { name: wanted }] = best;
    let name = wanted;
    for (let i = 2; name in defs; i++) name = `${wanted}${i}`;
    const ref = { $ref: `#/$defs/${name}` };
    root = replace(root, text, ref, true) as Json;
    for (const [k, body] of Object.entries(defs)) defs[k] = replace(body, text, ref, true);
    defs[name] = JSON.parse(text);
  }
  // A definition that only names another (a titled alias) is the other: one `$ref` fewer to follow, and no body.
  for (const [name, body] of Object.entries(defs)) {
    if (!isObject(body) || Object.keys(body).length !== 1 || typeof body.$ref !== 'string') continue;
    const text = JSON.stringify({ $ref: `#/$defs/${name}` });
    delete defs[name];
    root = replace(root, text, body, true) as Json;
    for (const [k, other] of Object.entries(defs)) defs[k] = replace(other, text, body, true);
  }
  const out = withoutTitles(root) as Json;
  if (Object.keys(defs).length > 0) out.$defs = Object.fromEntries(Object.entries(defs).map(([k, v]) => [k, withoutTitles(v)]));
  return out;
}

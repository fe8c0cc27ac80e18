// The house rules of src/, read from the import statements themselves: capabilities know no face
// and no money, money and chain access know no face, the two faces stand side by side below the
// entry, settings know no chain, storage knows no rules. Billing stands in layers: its rules
// (billing/*.ts, x402/) over the resilience machinery (billing/resilience/), and one backend seam
// (billing/backend/) that only the entry opens; SQLite and PostgreSQL never see each other. A new
// import that breaks one fails here, naming the file.
import { expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(import.meta.dir, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Billing's layers, each a part of its own: the rules are plain `billing`. */
const BILLING_LAYERS = ['billing/backend/sqlite', 'billing/backend/postgres', 'billing/backend', 'billing/resilience'];

/** The part a file of src/ belongs to: its first folder (a layer, in billing), or the file's own name at the top. */
function partOf(file: string): string {
  const path = relative(SRC, file);
  return BILLING_LAYERS.find((layer) => path.startsWith(`${layer}/`)) ?? path.split('/')[0]!.replace(/\.ts$/, '');
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]/g;

function edges(): { from: string; to: string; file: string; target: string }[] {
  return sourceFiles(SRC).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(IMPORT)].map((m) => {
      const target = resolve(dirname(file), m[1]!);
      return { from: partOf(file), to: relative(SRC, target).startsWith('..') ? 'outside' : partOf(target), file: relative(SRC, file), target: relative(SRC, target) };
    });
  });
}

/** The entry: it builds the services and the app, and starts them; nothing it builds may import it. */
const ENTRY = ['main', 'serve', 'app', 'services', 'readiness', 'llms', 'cli'];

/** Billing's storage: opened once, by the entry, through billing/backend/open.ts. */
const BACKEND = ['billing/backend', 'billing/backend/sqlite', 'billing/backend/postgres'];
const BILLING = ['billing', 'billing/resilience', ...BACKEND];

const NEVER: [from: string, to: string[], why: string][] = [
  ['capabilities', [...BILLING, 'http', 'mcp', 'calls'], 'a capability knows no face and no money'],
  ['chain', [...BILLING, 'http', 'mcp', 'calls', 'capabilities'], 'chain access knows no money and no face'],
  ...BILLING.map((layer): [string, string[], string] => [layer, ['http', 'mcp', 'calls', 'capabilities', ...ENTRY], 'money knows no face, and nothing of the entry that builds it']),
  ['billing', BACKEND, 'billing\'s rules use the store they are given, never the database behind it'],
  ['billing/resilience', ['billing', ...BACKEND], 'the retry and outcome machinery sits below the ledger and knows no rule'],
  ['billing/backend/sqlite', ['billing/backend/postgres'], 'one backend never sees the other'],
  ['billing/backend/postgres', ['billing/backend/sqlite'], 'one backend never sees the other'],
  ['calls', ['http', 'mcp', ...BACKEND], 'the pipeline serves both faces and knows neither, nor the database'],
  ['http', BACKEND, 'a face never holds the database: the entry hands it guarded parts'],
  ['mcp', BACKEND, 'a face never holds the database: the entry hands it guarded parts'],
  ['watch', BACKEND, "watches use billing's rules and open their stores through the seam's storeOf, handed in by the entry, never a backend module"],
  ['http', ['mcp', ...ENTRY], 'the two faces stand side by side, and below the entry that builds them'],
  ['mcp', ['http', ...ENTRY], 'the two faces stand side by side, and below the entry that builds them'],
  ['config', ['chain', 'billing', 'capabilities', 'calls', 'http', 'mcp', 'db'], 'settings know no other part'],
  ['db', [...BILLING, 'calls', 'capabilities', 'http', 'mcp'], 'storage knows no rules'],
  ['errors', ['chain', 'billing', 'capabilities', 'calls', 'http', 'mcp', 'db'], 'error types are a neutral bottom module'],
  ['json', ['chain', 'billing', 'capabilities', 'calls', 'http', 'mcp', 'db'], 'base helpers know no part'],
  ['read-capped', ['chain', 'billing', 'capabilities', 'calls', 'http', 'mcp', 'db'], 'base helpers know no part'],
  ['body', ['chain', 'billing', 'capabilities', 'calls', 'http', 'mcp', 'db'], 'base helpers know no part'],
  ['direct-route', ['chain', 'billing', 'capabilities', 'calls', 'http', 'mcp', 'db'], 'base helpers know no part'],
  ['bounded', ['chain', 'billing', 'capabilities', 'calls', 'http', 'mcp', 'db'], 'base helpers know no part'],
  ['within', ['chain', 'billing', 'capabilities', 'calls', 'http', 'mcp', 'db'], 'base helpers know no part'],
];

test('the import graph of src/ keeps the house rules', () => {
  const all = edges();
  expect(all.length).toBeGreaterThan(100); // the reader really saw the imports
  const broken = all
    .flatMap((e) => NEVER.filter(([from, to]) => e.from === from && to.includes(e.to)).map(([, , why]) => `${e.file} -> ${e.target}: ${why}`))
    .sort();
  expect(broken).toEqual([]);
});

/** The import cycles among `files`' edges, each as the files that close it (depth-first search). */
function cycles(all: ReturnType<typeof edges>): string[][] {
  const next = new Map<string, string[]>();
  for (const e of all) next.set(e.file, [...(next.get(e.file) ?? []), e.target]);
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const to of next.get(file) ?? []) {
      if (state.get(to) === 'open') found.push(path.slice(path.indexOf(to)));
      else if (!state.has(to)) visit(to);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of next.keys()) if (!state.has(file)) visit(file);
  return found;
}

test('billing imports in no circle', () => {
  const billing = edges().filter((e) => BILLING.includes(e.from) && BILLING.includes(e.to));
  expect(billing.length).toBeGreaterThan(30);
  expect(cycles(billing)).toEqual([]);
});

test('the only door to the database is the seam, and the entry alone opens it', () => {
  const doors = edges().filter((e) => BACKEND.includes(e.to) && !BACKEND.includes(e.from));
  expect([...new Set(doors.map((e) => e.target))].sort()).toEqual(['billing/backend/open.ts', 'billing/backend/outage.ts']);
  expect([...new Set(doors.map((e) => e.from))].every((part) => ENTRY.includes(part))).toBe(true);
});

test('the reader catches a forbidden import (the rule is not vacuous)', () => {
  const forbidden = (fake: { from: string; to: string }) => NEVER.some(([from, to]) => fake.from === from && to.includes(fake.to));
  expect(forbidden({ from: 'capabilities', to: 'billing' })).toBe(true);
  // A face or a capability that reaches for a backend module, and billing's rules doing so.
  for (const from of ['http', 'mcp', 'capabilities', 'calls', 'billing', 'watch']) expect(forbidden({ from, to: 'billing/backend/postgres' })).toBe(true);
  expect(partOf(join(SRC, 'billing/backend/sqlite/ledger.ts'))).toBe('billing/backend/sqlite');
  expect(partOf(join(SRC, 'billing/x402/payments.ts'))).toBe('billing');
  // A circle is seen.
  expect(cycles([{ from: 'billing', to: 'billing', file: 'a.ts', target: 'b.ts' }, { from: 'billing', to: 'billing', file: 'b.ts', target: 'a.ts' }])).toHaveLength(1);
  // And the pipeline really is used by both faces.
  const faces = new Set(edges().filter((e) => e.to === 'calls').map((e) => e.from));
  expect([...faces].sort()).toEqual(expect.arrayContaining(['http', 'mcp']));
});

// The house rules of src/, read from the import statements themselves: capabilities know no face
// and no money, money and chain access know no face, the two faces stand side by side below the
// entry, settings know no chain, storage knows no rules. A new import that breaks one fails here, naming the file.
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

/** The part a file of src/ belongs to: its first folder, or the file's own name at the top. */
const partOf = (file: string) => relative(SRC, file).split('/')[0]!.replace(/\.ts$/, '');

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

const NEVER: [from: string, to: string[], why: string][] = [
  ['capabilities', ['billing', 'http', 'mcp', 'calls'], 'a capability knows no face and no money'],
  ['chain', ['billing', 'http', 'mcp', 'calls', 'capabilities'], 'chain access knows no money and no face'],
  ['billing', ['http', 'mcp', 'calls', 'capabilities'], 'money knows no face'],
  ['calls', ['http', 'mcp'], 'the pipeline serves both faces and knows neither'],
  ['http', ['mcp', ...ENTRY], 'the two faces stand side by side, and below the entry that builds them'],
  ['mcp', ['http', ...ENTRY], 'the two faces stand side by side, and below the entry that builds them'],
  ['config', ['chain', 'billing', 'capabilities', 'calls', 'http', 'mcp', 'db'], 'settings know no other part'],
  ['db', ['billing', 'calls', 'capabilities', 'http', 'mcp'], 'storage knows no rules'],
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

test('the reader catches a forbidden import (the rule is not vacuous)', () => {
  const fake = { from: 'capabilities', to: 'billing' };
  expect(NEVER.some(([from, to]) => fake.from === from && to.includes(fake.to))).toBe(true);
  // And the pipeline really is used by both faces.
  const faces = new Set(edges().filter((e) => e.to === 'calls').map((e) => e.from));
  expect([...faces].sort()).toEqual(expect.arrayContaining(['http', 'mcp']));
});

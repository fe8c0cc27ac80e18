// The page scripts the binary serves are committed bundles: each must be exactly what
// `bun run build:pages` makes from its source today, or the page would run stale code.
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { bundlePage, PAGE_SCRIPTS } from '../../src/pages/build.ts';

for (const { entry, out } of PAGE_SCRIPTS) {
  test(`${out.split('/src/')[1]} is current (else run bun run build:pages)`, async () => {
    expect(readFileSync(out, 'utf8')).toBe(await bundlePage(entry));
  });
}

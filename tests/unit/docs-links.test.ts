// The README and docs/ name files, folders, anchors and `bun run` scripts; a newcomer follows them
// literally. Every one must exist. Markdown is parsed with micromark (GFM), so links inside tables,
// code spans and fenced blocks are told apart as GitHub tells them; anchors are GitHub's slugs.
import { describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import GithubSlugger from 'github-slugger';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

const ROOT = join(import.meta.dir, '../..');
const README_MAX_LINES = 200;

type Node = { type: string; url?: string; value?: string; depth?: number; children?: Node[] };

/** Paths under these top-level folders are repository paths wherever they appear. */
const REPO_PATH = /(?<![\w/.~:-])(?:\.\/)?((?:src|tests|bench|deploy|drizzle|docs|\.ci)\/[^\s`'"()[\],;]*)/g;
const BUN_RUN = /\bbun(?:@[\d.]+)? run ([\w:.-]+)/g;
/** A Markdown file named alone (`SPEC.md`): it must be one the repository holds, at its root, in docs/ or beside the page. */
const MD_NAME = /(?<![\w/.~:-])([A-Za-z][\w-]*\.md)\b/g;

function parse(text: string): Node {
  return fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as Node;
}

function walk(node: Node, visit: (n: Node) => void): void {
  visit(node);
  for (const child of node.children ?? []) walk(child, visit);
}

function plain(node: Node): string {
  return node.value ?? (node.children ?? []).map(plain).join('');
}

/** The anchors GitHub gives a page's headings (duplicates numbered, as GitHub does). */
function anchorsOf(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  walk(parse(text), (n) => {
    if (n.type === 'heading') anchors.add(slugger.slug(plain(n)));
  });
  return anchors;
}

/** A path as written, cut before a placeholder (`tests/unit/<file>`) or an ellipsis. */
function checkablePath(written: string): string {
  const cut = written.search(/<|\.\.\./);
  const path = cut === -1 ? written : written.slice(0, written.lastIndexOf('/', cut) + 1);
  return path.replace(/[.:]+$/, '');
}

function pathExists(root: string, path: string): boolean {
  if (!path.includes('*')) return existsSync(join(root, path));
  for (const _ of new Bun.Glob(path).scanSync({ cwd: root, onlyFiles: false })) return true;
  return false;
}

/** What is wrong with the Markdown files `files` (paths relative to `root`): one line per problem. */
function docProblems(root: string, files: string[]): string[] {
  const scripts = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts ?? {});
  const anchors = new Map<string, Set<string>>();
  const anchorsFor = (file: string) => {
    if (!anchors.has(file)) anchors.set(file, anchorsOf(readFileSync(join(root, file), 'utf8')));
    return anchors.get(file)!;
  };
  const problems: string[] = [];
  for (const file of files) {
    walk(parse(readFileSync(join(root, file), 'utf8')), (n) => {
      if ((n.type === 'link' || n.type === 'definition' || n.type === 'image') && n.url) {
        if (/^[a-z][a-z\d+.-]*:/i.test(n.url)) return;
        const [target, anchor] = n.url.split('#') as [string, string | undefined];
        const resolved = target === '' ? file : normalize(target.startsWith('/') ? target.slice(1) : join(dirname(file), target));
        if (resolved.startsWith('..')) problems.push(`${file}: link ${n.url} leaves the repository`);
        else if (!existsSync(join(root, resolved))) problems.push(`${file}: link ${n.url}: ${resolved} does not exist`);
        else if (anchor && resolved.endsWith('.md') && !anchorsFor(resolved).has(anchor))
          problems.push(`${file}: link ${n.url}: no heading #${anchor} in ${resolved}`);
      }
      if (n.type === 'text' || n.type === 'inlineCode' || n.type === 'code') {
        const text = n.value ?? '';
        for (const [, written] of text.matchAll(REPO_PATH)) {
          const path = checkablePath(written!);
          if (!pathExists(root, path)) problems.push(`${file}: path ${written} does not exist`);
        }
        for (const [, name] of text.matchAll(MD_NAME)) {
          if (![name!, join('docs', name!), join(dirname(file), name!)].some((p) => existsSync(join(root, p)))) problems.push(`${file}: names ${name}, which the repository does not hold`);
        }
        for (const [, script] of text.matchAll(BUN_RUN))
          if (!scripts.includes(script!)) problems.push(`${file}: \`bun run ${script}\`: no such script in package.json`);
      }
    });
  }
  return problems;
}

const docPages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);

describe('README.md and docs/', () => {
  test('every link, anchor, repository path and `bun run` script they name exists', () => {
    expect(docProblems(ROOT, ['README.md', ...docPages])).toEqual([]);
  });

  test(`README.md is at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  test('README.md links every docs/ page', () => {
    const linked = new Set<string>();
    walk(parse(readFileSync(join(ROOT, 'README.md'), 'utf8')), (n) => {
      if (n.type === 'link' && n.url) linked.add(normalize(n.url.split('#')[0]!));
    });
    expect(docPages.filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe('the checker', () => {
  const check = (readme: string, files: Record<string, string> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'docs-links-'));
    const all = { 'package.json': '{"scripts":{"start":"x"}}', 'src/a.ts': '', 'docs/page.md': '# Page\n\n## Some section: `X_Y`\n', ...files, 'README.md': readme };
    for (const [name, text] of Object.entries(all)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    try {
      return docProblems(dir, ['README.md']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  test('finds a broken relative link, a missing anchor, a missing path and an unknown script', () => {
    expect(check('[ok](docs/page.md#some-section-x_y) [bad](docs/nope.md)')).toEqual([
      'README.md: link docs/nope.md: docs/nope.md does not exist',
    ]);
    expect(check('[bad anchor](docs/page.md#no-such)')).toEqual([
      'README.md: link docs/page.md#no-such: no heading #no-such in docs/page.md',
    ]);
    expect(check('see `src/a.ts` and `src/b.ts`')).toEqual(['README.md: path src/b.ts does not exist']);
    expect(check('as SPEC.md says, and page.md')).toEqual(['README.md: names SPEC.md, which the repository does not hold']);
    expect(check('```sh\nbun run start && bun run nope\n```\n')).toEqual([
      'README.md: `bun run nope`: no such script in package.json',
    ]);
    expect(check('| `tests/x/<file>` |\n|---|\n| [x](../outside.md) |')).toEqual([
      'README.md: path tests/x/<file> does not exist',
      'README.md: link ../outside.md leaves the repository',
    ]);
  });

  test('passes what exists: URLs, globs, placeholders under an existing folder, same-page anchors', () => {
    expect(check('# Top\n\n[a](https://example.com) [b](#top) `src/*.ts` `src/<file>` http://localhost:3000/docs/x')).toEqual([]);
  });
});

import { snapshotOf } from './decode-snapshot';
const before = await Bun.file('/work/wt-longtail/tests/fixtures/snapshots/decode-before-issue-42.json').json();
const files = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(before);
for (const f of files) {
  const a: any = await snapshotOf(f); const b: any = before[f];
  const newActions = a.actions.filter((x: any) => !b || !b.actions.some((y: any) => JSON.stringify(y) === JSON.stringify(x)));
  if (!b || newActions.length || a.summary !== b.summary) {
    console.log('==', f);
    if (b && a.summary !== b.summary) console.log('  before:', b.summary);
    console.log('  after: ', a.summary, '| kind', a.kind);
    for (const x of newActions) console.log('  +', JSON.stringify(x));
  }
}

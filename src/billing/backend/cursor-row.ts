// The watcher's cursor as both backends store it: a row of columns, and back.
import type { WatcherCursor } from '../store.ts';

type CursorRow = { lastSignature: string; lastSlot: number | null; walkHead: string | null; walkHeadSlot: number | null; walkBefore: string | null };

/** A stored cursor row (either dialect) as the watcher uses it. */
export function cursorOf(row: CursorRow | undefined): WatcherCursor {
  if (!row) return {};
  return {
    last: row.lastSignature ? { signature: row.lastSignature, slot: row.lastSlot ?? 0 } : undefined,
    walk: row.walkHead ? { head: { signature: row.walkHead, slot: row.walkHeadSlot ?? 0 }, before: row.walkBefore ?? undefined } : undefined,
  };
}

/** The watcher's cursor as the columns both dialects store it (the inverse of cursorOf), stamped now. */
export function cursorRow(c: WatcherCursor): CursorRow & { updatedAt: number } {
  return {
    lastSignature: c.last?.signature ?? '',
    lastSlot: c.last?.slot ?? null,
    walkHead: c.walk?.head.signature ?? null,
    walkHeadSlot: c.walk?.head.slot ?? null,
    walkBefore: c.walk?.before ?? null,
    updatedAt: Date.now(),
  };
}

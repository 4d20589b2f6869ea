// Structured diff of two GraphQL responses (a replayed record and a re-run of it), for support:
// lists of records with an `id` (plans, utilities) are compared by id (added, removed, changed
// field by field, order), everything else by JSON path. Request ids inside bodies (error messages
// quote them) are not differences.

export interface ValueChange {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  old?: unknown;
  new?: unknown;
}

interface ListItemRef {
  id: string;
  title?: string;
}

export interface IdListDiff {
  path: string;
  added: ListItemRef[];
  removed: ListItemRef[];
  changed: (ListItemRef & { changes: ValueChange[] })[];
  /** Same ids in a different order (e.g. cheapest-first ranking moved). */
  orderChanged: boolean;
}

export interface ResponseDiff {
  identical: boolean;
  status: { old: number | null; new: number | null };
  lists: IdListDiff[];
  changes: ValueChange[];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Fields that identify an item in a list (tiers by usage, credits by threshold, shares by source). */
const ITEM_KEYS = ['id', 'usageKwh', 'minKwh', 'source', 'accountId'];

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

function itemKey(items: Json[]): string | null {
  if (items.length === 0 || !items.every(isObject)) return null;
  for (const k of ITEM_KEYS) {
    const values = items.map((i) => (i as Record<string, Json>)[k]);
    if (values.every((v) => typeof v === 'string' || typeof v === 'number') && new Set(values).size === values.length) return k;
  }
  return null;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function titleOf(item: Record<string, Json>): string | undefined {
  for (const k of ['title', 'name']) if (typeof item[k] === 'string') return item[k] as string;
  return undefined;
}

function diffValue(a: Json | undefined, b: Json | undefined, path: string, out: ResponseDiff): void {
  if (deepEqual(a, b)) return;
  if (a === undefined) {
    out.changes.push({ path, kind: 'added', new: b });
    return;
  }
  if (b === undefined) {
    out.changes.push({ path, kind: 'removed', old: a });
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const ka = a.length ? itemKey(a) : null;
    const kb = b.length ? itemKey(b) : null;
    const key = a.length && b.length ? (ka === kb ? ka : null) : (ka ?? kb);
    if (key) {
      diffKeyedList(a as Record<string, Json>[], b as Record<string, Json>[], key, path, out);
      return;
    }
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) diffValue(a[i], b[i], `${path}[${i}]`, out);
    return;
  }
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diffValue(a[k], b[k], join(path, k), out);
    return;
  }
  out.changes.push({ path, kind: 'changed', old: a, new: b });
}

function diffKeyedList(a: Record<string, Json>[], b: Record<string, Json>[], key: string, path: string, out: ResponseDiff): void {
  const oldBy = new Map(a.map((i) => [String(i[key]), i]));
  const newBy = new Map(b.map((i) => [String(i[key]), i]));
  if (key !== 'id') {
    // Small keyed lists (tiers, credits, shares): plain path changes, addressed by key.
    for (const k of new Set([...oldBy.keys(), ...newBy.keys()])) diffValue(oldBy.get(k), newBy.get(k), `${path}[${key}=${k}]`, out);
    return;
  }
  const list: IdListDiff = { path, added: [], removed: [], changed: [], orderChanged: false };
  for (const [id, item] of newBy) if (!oldBy.has(id)) list.added.push({ id, title: titleOf(item) });
  for (const [id, item] of oldBy) if (!newBy.has(id)) list.removed.push({ id, title: titleOf(item) });
  for (const [id, oldItem] of oldBy) {
    const newItem = newBy.get(id);
    if (!newItem || deepEqual(oldItem, newItem)) continue;
    const sub: ResponseDiff = { identical: false, status: out.status, lists: [], changes: [] };
    for (const k of new Set([...Object.keys(oldItem), ...Object.keys(newItem)])) diffValue(oldItem[k], newItem[k], k, sub);
    for (const l of sub.lists) out.lists.push({ ...l, path: `${path}[id=${id}].${l.path}` });
    list.changed.push({ id, title: titleOf(newItem) ?? titleOf(oldItem), changes: sub.changes });
  }
  const commonOld = a.map((i) => String(i.id)).filter((id) => newBy.has(id));
  const commonNew = b.map((i) => String(i.id)).filter((id) => oldBy.has(id));
  list.orderChanged = commonOld.some((id, i) => commonNew[i] !== id);
  if (list.added.length || list.removed.length || list.changed.length || list.orderChanged) out.lists.push(list);
}

function parse(body: string): { json: Json } | { text: string } {
  try {
    return { json: JSON.parse(body) as Json };
  } catch {
    return { text: body };
  }
}

function scrub(body: string, requestId: string | undefined): string {
  return requestId ? body.split(requestId).join('<request-id>') : body;
}

export function diffResponses(
  oldBody: string,
  newBody: string,
  opts: { oldStatus?: number | null; newStatus?: number | null; oldRequestId?: string; newRequestId?: string } = {},
): ResponseDiff {
  const out: ResponseDiff = {
    identical: true,
    status: { old: opts.oldStatus ?? null, new: opts.newStatus ?? null },
    lists: [],
    changes: [],
  };
  const a = parse(scrub(oldBody, opts.oldRequestId));
  const b = parse(scrub(newBody, opts.newRequestId));
  if ('json' in a && 'json' in b) diffValue(a.json, b.json, '', out);
  else if (('text' in a ? a.text : JSON.stringify(a.json)) !== ('text' in b ? b.text : JSON.stringify(b.json))) {
    out.changes.push({ path: '(body)', kind: 'changed', old: 'text' in a ? a.text : a.json, new: 'text' in b ? b.text : b.json });
  }
  const statusDiffers = out.status.old !== null && out.status.new !== null && out.status.old !== out.status.new;
  out.identical = !statusDiffers && out.lists.length === 0 && out.changes.length === 0;
  return out;
}

const show = (v: unknown) => {
  const s = JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > 200 ? `${s.slice(0, 197)}...` : s;
};

/** Human-readable rendering of a diff, one change per line. */
export function formatDiff(d: ResponseDiff): string {
  const lines: string[] = [];
  if (d.status.old !== null || d.status.new !== null) {
    lines.push(d.status.old === d.status.new ? `status: ${d.status.old} (same)` : `status: ${d.status.old} -> ${d.status.new}`);
  }
  if (d.identical) {
    lines.push('identical: the operation answers the same now');
    return lines.join('\n');
  }
  for (const l of d.lists) {
    const parts = [`${l.added.length} added`, `${l.removed.length} removed`, `${l.changed.length} changed`];
    if (l.orderChanged) parts.push('order changed');
    lines.push(`${l.path} (by id): ${parts.join(', ')}`);
    const label = (r: ListItemRef) => (r.title ? `${r.id} "${r.title}"` : r.id);
    for (const r of l.added) lines.push(`  + ${label(r)}`);
    for (const r of l.removed) lines.push(`  - ${label(r)}`);
    for (const c of l.changed) {
      lines.push(`  ~ ${label(c)}`);
      for (const ch of c.changes) lines.push(`      ${formatChange(ch)}`);
    }
  }
  for (const ch of d.changes) lines.push(formatChange(ch));
  return lines.join('\n');
}

function formatChange(ch: ValueChange): string {
  if (ch.kind === 'added') return `+ ${ch.path}: ${show(ch.new)}`;
  if (ch.kind === 'removed') return `- ${ch.path}: ${show(ch.old)}`;
  return `~ ${ch.path}: ${show(ch.old)} -> ${show(ch.new)}`;
}

// The USPS ZIP list the `zipcodes` package carries (tens of thousands of records, parsed when the
// module loads), imported on first use instead of at start-up: only a ZIP no feed covers (coverage)
// or one inside a municipal town's prefix (the reference upstream) needs it. The import is shared by
// every caller; a failed one is forgotten, so the next lookup tries again.
import type { ZipCode } from 'zipcodes';

/** The part of the package's API used here. */
interface ZipDatabase {
  lookup(zip: string): ZipCode | undefined;
}

/** The ZIP database could not be loaded; the lookup cannot say whether a ZIP exists. */
export class ZipDatabaseError extends Error {
  constructor(cause: unknown) {
    super(`the ZIP code database (package zipcodes) could not be loaded: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'ZipDatabaseError';
  }
}

let loading: Promise<ZipDatabase> | null = null;

/** The package's lookup, imported once on the first call. Rejects with ZipDatabaseError when the import fails. */
export function zipDatabase(): Promise<ZipDatabase> {
  loading ??= import('zipcodes').then(
    (m: { default?: Partial<ZipDatabase> } & Partial<ZipDatabase>) => {
      // A CommonJS module: its exports arrive as the default export.
      const db = m.default ?? m;
      if (typeof db.lookup !== 'function') throw new ZipDatabaseError(new Error('the module has no lookup()'));
      return db as ZipDatabase;
    },
    (err: unknown) => {
      throw new ZipDatabaseError(err);
    },
  );
  loading.catch(() => (loading = null));
  return loading;
}

/** The ZIP's USPS primary city (upper case) and state, or undefined when the list has no US ZIP of that code. */
export async function zipPlace(zip: string): Promise<{ city: string; state: string } | undefined> {
  const found = (await zipDatabase()).lookup(zip);
  return found && found.country === 'US' ? { city: found.city.toUpperCase(), state: found.state } : undefined;
}

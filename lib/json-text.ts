// JSON text built by concatenation (log lines, replay records): most values (ids, names, addresses,
// times) need no escaping, so a quick check saves JSON.stringify's work on them.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A JSON string literal of `s`. */
export const jsonString = (s: string): string => (PLAIN.test(s) ? `"${s}"` : JSON.stringify(s));

/** A JSON string literal, or null. */
export const jsonStringOrNull = (s: string | null): string => (s === null ? 'null' : jsonString(s));

/** The values of JSON lines text (append-only logs): blank lines and lines that do not parse (a torn last line after a crash) are skipped. */
export function parseJsonLines<T>(text: string): T[] {
  const out: T[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // torn line
    }
  }
  return out;
}

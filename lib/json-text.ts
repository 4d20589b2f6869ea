// JSON text built by concatenation (log lines, replay records): most values (ids, names, addresses,
// times) need no escaping, so a quick check saves JSON.stringify's work on them.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A JSON string literal of `s`. */
export const jsonString = (s: string): string => (PLAIN.test(s) ? `"${s}"` : JSON.stringify(s));

/** A JSON string literal, or null. */
export const jsonStringOrNull = (s: string | null): string => (s === null ? 'null' : jsonString(s));

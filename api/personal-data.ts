// Which parts of the public schema are personal data (street addresses, account identifiers).
// The one place this rule lives until the schema carries it as a directive (issue 11): the
// response cache never caches these fields, and replay records that touch them are sealed.

/** Root fields whose arguments and answers are personal data. */
export const PERSONAL_DATA_ROOT_FIELDS: ReadonlySet<string> = new Set(['utilityAccounts']);

/** True when an operation selecting these root fields handles personal data. */
export function selectsPersonalData(rootFields: readonly string[]): boolean {
  return rootFields.some((f) => PERSONAL_DATA_ROOT_FIELDS.has(f));
}

/** For text that never parsed: true when it may name a personal-data field (errs on the safe side). */
export function mayMentionPersonalData(text: string): boolean {
  for (const f of PERSONAL_DATA_ROOT_FIELDS) if (text.includes(f)) return true;
  return false;
}

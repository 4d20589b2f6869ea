// Validators for partner-supplied arguments. Each returns the normalized value or throws InputError
// with a message safe to show a partner (it names the argument and never echoes the raw input).

export class InputError extends Error {
  override readonly name = 'InputError';
  /** For GraphQL error extensions. */
  readonly code = 'BAD_USER_INPUT';
  readonly argument: string;
  constructor(argument: string, message: string) {
    super(`Invalid ${argument}: ${message}`);
    this.argument = argument;
  }
}

export const US_STATES: Readonly<Record<string, string>> = Object.freeze({
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'District of Columbia',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
});

/** Exactly 5 ASCII digits, not 00000 (never assigned: refused with that reason). No trimming. */
export function zipCode(value: unknown, argument = 'zipCode'): string {
  if (typeof value !== 'string' || !/^[0-9]{5}$/.test(value)) {
    throw new InputError(argument, 'must be a 5-digit US ZIP code such as "75001"');
  }
  if (value === '00000')
    throw new InputError(
      argument,
      '00000 is not a ZIP code the US Postal Service assigns; send the 5-digit ZIP of the address, such as "75001"',
    );
  return value;
}

function intInRange(value: unknown, argument: string, min: number, max: number, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InputError(argument, `must be a whole number of ${what} from ${min} to ${max}`);
  }
  return value;
}

/** Monthly usage in kWh, integer 1..100000; null/undefined -> null (not given). */
export function monthlyUsage(value: unknown, argument = 'monthlyUsage'): number | null {
  if (value === null || value === undefined) return null;
  return intInRange(value, argument, 1, 100_000, 'kWh per month');
}

/** Annual usage in kWh, integer 1..100000000 (required). */
export function annualUsage(value: unknown, argument = 'annualUsage'): number {
  return intInRange(value, argument, 1, 100_000_000, 'kWh per year');
}

/** A usage profile: exactly twelve monthly kWh (January first), each a whole number 0..100000; null/undefined -> null. */
export function usageProfile(value: unknown, argument = 'usageProfile'): number[] | null {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value) || value.length !== 12) {
    throw new InputError(
      argument,
      `must list exactly 12 monthly usages in kWh, January first; got ${Array.isArray(value) ? value.length : 'no list'}`,
    );
  }
  value.forEach((v, i) => intInRange(v, `${argument}[${i}]`, 0, 100_000, 'kWh per month'));
  return [...(value as number[])];
}

/** Annual usage in kWh to spread over a state's monthly shape, integer 1..1200000; null/undefined -> null. */
export function annualUsageKwh(value: unknown, argument = 'annualUsageKwh'): number | null {
  if (value === null || value === undefined) return null;
  return intInRange(value, argument, 1, 1_200_000, 'kWh per year');
}

/** USPS code of one of the 50 states or DC, any case; returned upper-case. No trimming. */
export function state(value: unknown, argument = 'state'): string {
  const code = typeof value === 'string' && /^[A-Za-z]{2}$/.test(value) ? value.toUpperCase() : '';
  if (!Object.hasOwn(US_STATES, code)) {
    throw new InputError(argument, 'must be a two-letter US state code (one of the 50 states or DC), such as "TX"');
  }
  return code;
}

/** Utility id token, exact (upper-case is required, not normalized): ^[A-Z][A-Z0-9_]{1,39}$. */
export function utilityId(value: unknown, argument = 'utilityId'): string {
  if (typeof value !== 'string' || !/^[A-Z][A-Z0-9_]{1,39}$/.test(value)) {
    throw new InputError(argument, 'must be an upper-case utility id such as "ONCOR" (A-Z, 0-9, _; 2 to 40 characters)');
  }
  return value;
}

const ADDRESS_MAX = 200;
// Letters of any script (with combining marks, e.g. "Peñasco" in either Unicode form), ASCII
// digits, ASCII space and # . , ' - / &. No tabs, newlines or other control/format characters.
const ADDRESS_RE = /^[\p{L}\p{M}0-9 #.,'\-/&]+$/u;

/** Street address: trimmed, NFC-normalized, 1..200 characters of the allowed set. */
/** A billing (meter-read) cycle as utilities print it on the bill: "07", "A3", "15B". */
export function meterReadCycle(value: unknown, argument = 'meterReadCycle'): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9-]{1,8}$/.test(value)) {
    throw new InputError(argument, 'must be a meter-read cycle as on the bill, e.g. "07" (letters, digits, -; 1 to 8 characters)');
  }
  return value.toUpperCase();
}

export function address(value: unknown, argument = 'address'): string {
  if (typeof value !== 'string') throw new InputError(argument, 'must be a text street address');
  // Cheap length cap before any normalization work on hostile input.
  if (value.length > ADDRESS_MAX * 4) throw new InputError(argument, `must be at most ${ADDRESS_MAX} characters`);
  const text = value.trim().normalize('NFC');
  if (text.length === 0) throw new InputError(argument, 'must not be empty');
  if (text.length > ADDRESS_MAX) throw new InputError(argument, `must be at most ${ADDRESS_MAX} characters`);
  if (!ADDRESS_RE.test(text)) {
    throw new InputError(argument, "may only contain letters, digits, spaces and the characters # . , ' - / &");
  }
  return text;
}

/** A real calendar date written YYYY-MM-DD (years 2000..2199). No trimming. */
export function isoDate(value: unknown, argument = 'date'): string {
  const ok =
    typeof value === 'string' &&
    /^(20|21)[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/.test(value) &&
    new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;
  if (!ok) throw new InputError(argument, 'must be a date written YYYY-MM-DD, such as "2027-03-15"');
  return value as string;
}

// Contract between the feed-mapping transform (configuration) and the resolvers (use).
import type { CanonicalOffer, Territory, Micro } from '../../domain/canonical.js';
import type { UnitName } from './units.js';

export type FeedKind = 'offers' | 'territories' | 'stateStats' | 'usageShape' | 'premises';

/** What a resolver knows when it asks a feed; `args` in the YAML maps these onto the feed's own arguments. */
export interface FeedInput {
  zipCode?: string;
  utilityId?: string;
  customerClass?: 'RESIDENTIAL' | 'COMMERCIAL';
  state?: string;
  address?: string;
}

export const FEED_INPUT_KEYS = [
  'zipCode',
  'utilityId',
  'customerClass',
  'state',
  'address',
] as const satisfies readonly (keyof FeedInput)[];
export type FeedInputKey = (typeof FEED_INPUT_KEYS)[number];

/**
 * How often a feed is called for one partner request: `request` once with the request's inputs (a
 * feed answering per ZIP); `utility` once per choice territory serving the ZIP, with that
 * territory's utility id (offers feeds answering per utility; the answer is shared by every ZIP of
 * the territory).
 */
export type CallScope = 'request' | 'utility';
export const CALL_SCOPES: readonly CallScope[] = ['request', 'utility'];

/** How a paginated feed is followed (see compile.ts, `pagination`). */
export type Pagination =
  | { style: 'cursor'; arg: string; maxPages: number }
  | { style: 'page'; arg: string; first: number; sizeArg: string | null; size: number; maxPages: number };

/** EIA's nine categories, plus WIND and SOLAR for feeds that report them apart from OTHER_RENEWABLES. */
export type GenerationSource =
  | 'COAL'
  | 'PETROLEUM'
  | 'NATURAL_GAS'
  | 'OTHER_GASES'
  | 'NUCLEAR'
  | 'HYDRO'
  | 'OTHER_RENEWABLES'
  | 'PUMPED_STORAGE'
  | 'OTHER'
  | 'WIND'
  | 'SOLAR';

/** One block's record; a source's blocks together carry every field (merged by state). */
export interface StateStats {
  state: string;
  name?: string;
  year?: number;
  residentialMicroPerKwh?: Micro;
  commercialMicroPerKwh?: Micro;
  generationMwh?: Partial<Record<GenerationSource, number>>;
  /** The feed marks the figures as estimated (derived), not published. */
  estimated?: boolean;
}

/** A state's typical monthly residential usage: its residential sales per month, January first. */
export interface UsageShape {
  state: string;
  year: number;
  /** Twelve monthly residential sales, MWh (only their proportions matter). */
  monthlyMwh: number[];
}

export interface ServiceAccount {
  accountId: string;
  idType: string;
  address: { line1: string; line2: string | null; city: string; state: string; zip: string };
  utilityId: string;
  meterType: string;
  status: string;
  premiseType: string | null;
  /** The billing (meter-read) cycle of the account, as on its bill; null when the feed does not say. */
  meterReadCycle?: string | null;
}

export interface CanonicalByKind {
  offers: CanonicalOffer;
  territories: Territory;
  stateStats: StateStats;
  usageShape: UsageShape;
  premises: ServiceAccount;
}

export interface Rejection {
  index: number;
  reason: string;
  /** Set when the record mapped but a canonical value is outside its hard plausibility range. */
  implausible?: string;
  /** Set when the field's values are implausible across the payload (a unit mistake), not in this record alone. */
  systematic?: true;
}

/** A value inside the hard range but outside the soft one: served, reported by feeds:check. */
export interface Doubt {
  index: number;
  field: string;
  message: string;
}

/** A served record carrying a non-zero value of a field with a plausible range. */
export interface Carrier {
  field: string;
  /** Place in the served records. */
  position: number;
  /** Place in the feed's record list (for messages). */
  index: number;
  /** The units a doubtful value would be plausible in ("cents"), null when it is plausible. */
  likely: string | null;
  message?: string;
}

export interface MappedPayload<T> {
  records: T[];
  /** Records dropped because they did not map (wrong type, missing required field, implausible value...). */
  rejected: Rejection[];
  /** Values outside their soft plausibility range (records kept). */
  doubts: Doubt[];
  /** Served records carrying non-zero checked quantities, for a unit mistake across the call (plausibility.ts dropSystematic). */
  carriers?: Carrier[];
  /** Pagination: the cursor / whether another page follows this one (absent without pagination). */
  next?: { cursor: string | null } | { more: boolean };
}

export interface FeedBinding<K extends FeedKind = FeedKind> {
  /** Mesh source name, e.g. `Voltify`. */
  source: string;
  kind: K;
  /** Root Query field of the source to call. */
  operation: string;
  /** GraphQL selection set (with braces) covering every path the mapping reads. */
  selectionSet: string;
  /** Once per request, or once per served utility (offers only). */
  scope: CallScope;
  /** Set for a paginated feed. */
  pagination: Pagination | null;
  /** Seconds a utility-scoped answer is reused for other ZIPs of the territory (0: not kept). */
  cacheSeconds: number;
  /** The feed's own arguments for this request. */
  args(input: FeedInput): Record<string, unknown>;
  /**
   * Payload (the operation's result, one page) -> canonical records; `request` is what `$request.*`
   * reads. Never throws on bad records; throws FeedPayloadError when the payload as a whole is
   * unusable (null, wrong type).
   */
  map(payload: unknown, request?: FeedInput): MappedPayload<CanonicalByKind[K]>;
  /** Per-feed settings from the YAML. */
  timeoutMs: number;
  sampleZip?: string;
  sampleState?: string;
  /** The unit the mapping declares per canonical field path (for naming a unit mistake). */
  units?: ReadonlyMap<string, UnitName>;
  /** `serve-anyway`: a unit mistake across feeds (unit-consensus.ts) is reported but does not refuse the start. */
  unitCheck?: 'refuse' | 'serve-anyway';
}

/** A mapping that cannot work: thrown at start-up, names the feed (source) and the key. */
export class FeedConfigError extends Error {
  constructor(
    public source: string,
    public key: string,
    detail: string,
  ) {
    super(`feed ${source}: ${key}: ${detail}`);
    this.name = 'FeedConfigError';
  }
}

/** An upstream payload that is unusable as a whole. */
export class FeedPayloadError extends Error {
  constructor(
    public source: string,
    detail: string,
  ) {
    super(`feed ${source}: ${detail}`);
    this.name = 'FeedPayloadError';
  }
}

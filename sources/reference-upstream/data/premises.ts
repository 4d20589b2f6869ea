// Service points (premises) per ZIP: a few well-known landmark addresses plus a handful of
// generated accounts for every served ZIP, derived from the ZIP itself so nothing is stored.
// Texas competitive-area premises carry 17-digit ESIIDs that start with the TDU's prefix;
// everywhere else the utility's account number identifies the premise.

import { rngFor, type Rng } from './prng.js';
import { utilityById } from './utilities.js';
import { cityForZip, utilityIdsForZip } from './zips.js';

interface Premise {
  accountId: string;
  idType: 'ESIID' | 'ACCOUNT_NUMBER';
  serviceAddress: { line1: string; line2: string | null; city: string; state: string; zip: string };
  utilityId: string;
  meterType: 'AMS' | 'AMI' | 'AMR';
  status: 'ACTIVE' | 'INACTIVE';
  premiseType: 'RESIDENTIAL' | 'COMMERCIAL';
  /** Billing cycle "01".."20" of accounts with meter-read switching; absent elsewhere. */
  meterReadCycle?: string;
}

/** The account's billing cycle, derived from its id (no random draw, so the other premises stay as they were). */
function withCycle(p: Premise): Premise {
  const cycles = utilityById(p.utilityId)?.switching.meterReadCycles;
  if (!cycles?.length) return p;
  let h = 0;
  for (const c of p.accountId) h = (h * 31 + c.charCodeAt(0)) % 100_003;
  return { ...p, meterReadCycle: cycles[h % cycles.length]!.cycle };
}

/** ERCOT TDU ESIID prefixes (DUNS-derived). */
const ESIID_PREFIX: Record<string, string> = {
  ONCOR: '10443720', CENTERPOINT: '1008901', AEP_TEXAS_CENTRAL: '10032789', AEP_TEXAS_NORTH: '10204049', TNMP: '10400511',
};
/** Account-number lengths where a utility's differ from the common 10 digits. */
const ACCOUNT_DIGITS: Record<string, number> = { CONED: 15, AEP_OHIO: 11, EVERSOURCE_MA: 11, EVERSOURCE_CT: 11, DUKE_ENERGY_OHIO: 12, PGE: 10 };

type Landmark = [line1: string, city: string, zip: string, utilityId: string, accountId: string, type: Premise['premiseType']];

const LANDMARKS: Landmark[] = [
  ['1500 MARILLA ST', 'DALLAS', '75201', 'ONCOR', '10443720001234567', 'RESIDENTIAL'],
  ['901 BAGBY ST', 'HOUSTON', '77002', 'CENTERPOINT', '10089010001401234', 'COMMERCIAL'],
  ['151 W CHURCH ST', 'LEWISVILLE', '75067', 'ONCOR', '10443720007765012', 'COMMERCIAL'],
  ['1400 JFK BLVD', 'PHILADELPHIA', '19103', 'PECO', '6021580314', 'COMMERCIAL'],
  ['121 N LASALLE ST', 'CHICAGO', '60602', 'COMED', '4382016597', 'COMMERCIAL'],
  ['90 W BROAD ST', 'COLUMBUS', '43215', 'AEP_OHIO', '00140260178', 'COMMERCIAL'],
  ['1 CENTRE ST', 'NEW YORK', '10007', 'CONED', '290011245600018', 'COMMERCIAL'],
  ['920 BROAD ST', 'NEWARK', '07102', 'PSEG', '7400123985', 'COMMERCIAL'],
  ['100 HOLLIDAY ST', 'BALTIMORE', '21202', 'BGE', '1180042273', 'COMMERCIAL'],
  ['1 CITY HALL SQ', 'BOSTON', '02201', 'EVERSOURCE_MA', '51001234402', 'COMMERCIAL'],
  ['1 DR CARLTON B GOODLETT PL', 'SAN FRANCISCO', '94102', 'PGE', '3301187420', 'COMMERCIAL'],
];

const STREETS = [
  'MAIN ST', 'OAK AVE', 'ELM ST', 'MAPLE DR', 'CEDAR LN', 'PINE ST', 'WASHINGTON AVE', 'LAKE SHORE DR', 'PARK BLVD',
  'HILLCREST RD', 'SUNSET BLVD', 'CHURCH ST', 'N 5TH ST', 'S BROADWAY', 'W MARKET ST', 'E JEFFERSON ST', 'RIVER RD',
  'MEADOW LN', 'WALNUT ST', 'FRANKLIN AVE', 'HIGHLAND AVE', 'COLLEGE AVE', 'MILL CREEK RD', 'WILLOW WAY', 'PRAIRIE VIEW DR',
];

function accountId(rng: Rng, utilityId: string): Pick<Premise, 'accountId' | 'idType'> {
  const esiid = ESIID_PREFIX[utilityId];
  if (esiid) return { accountId: esiid + rng.digits(17 - esiid.length), idType: 'ESIID' };
  return { accountId: rng.digits(ACCOUNT_DIGITS[utilityId] ?? 10), idType: 'ACCOUNT_NUMBER' };
}

function meterType(rng: Rng, idType: Premise['idType']): Premise['meterType'] {
  return idType === 'ESIID' ? 'AMS' : rng.pick(['AMI', 'AMI', 'AMI', 'AMR'] as const);
}

function generated(zip: string, utilityIds: string[], city: string): Premise[] {
  const rng = rngFor(`premises:${zip}`);
  const premises: Premise[] = [];
  const buildings = rng.int(4, 6);
  for (let b = 0; b < buildings; b++) {
    // Round-robin first so every utility sharing the ZIP has at least one premise.
    const utilityId = b < utilityIds.length ? utilityIds[b]! : rng.pick(utilityIds);
    const state = utilityById(utilityId)!.state;
    const line1 = `${rng.int(100, 9899)} ${rng.pick(STREETS)}`;
    const kind = rng.next();
    // Most buildings are houses; some are apartment buildings or small commercial strips with units.
    const units = kind < 0.7 ? [null] : kind < 0.85 ? ['APT 1A', 'APT 1B', 'APT 2A'] : ['STE 100', 'STE 110'];
    const premiseType: Premise['premiseType'] = units[0]?.startsWith('STE') ? 'COMMERCIAL' : 'RESIDENTIAL';
    for (const line2 of units) {
      const id = accountId(rng, utilityId);
      premises.push({
        ...id,
        serviceAddress: { line1, line2, city, state, zip },
        utilityId,
        meterType: meterType(rng, id.idType),
        status: rng.chance(0.9) ? 'ACTIVE' : 'INACTIVE',
        premiseType,
      });
    }
  }
  return premises;
}

/** All premises in a ZIP, landmarks first; empty when no utility serves it. */
export async function premisesInZip(zip: string): Promise<Premise[]> {
  const [utilityIds, city] = await Promise.all([utilityIdsForZip(zip), cityForZip(zip)]);
  if (!utilityIds.length || !city) return [];
  const landmarks = LANDMARKS.filter((l) => l[2] === zip).map(([line1, lCity, lZip, utilityId, id, premiseType]): Premise => ({
    accountId: id,
    idType: ESIID_PREFIX[utilityId] ? 'ESIID' : 'ACCOUNT_NUMBER',
    serviceAddress: { line1, line2: null, city: lCity, state: utilityById(utilityId)!.state, zip: lZip },
    utilityId,
    meterType: ESIID_PREFIX[utilityId] ? 'AMS' : 'AMI',
    status: 'ACTIVE',
    premiseType,
  }));
  return [...landmarks, ...generated(zip, utilityIds, city)].map(withCycle);
}

// Postal abbreviations, so "1400 JFK Boulevard" finds "1400 JFK BLVD".
const ABBREVIATIONS: Record<string, string> = {
  STREET: 'ST', AVENUE: 'AVE', BOULEVARD: 'BLVD', ROAD: 'RD', DRIVE: 'DR', LANE: 'LN', COURT: 'CT', PLACE: 'PL',
  PARKWAY: 'PKWY', HIGHWAY: 'HWY', SQUARE: 'SQ', TERRACE: 'TER', CIRCLE: 'CIR', APARTMENT: 'APT', SUITE: 'STE',
  NORTH: 'N', SOUTH: 'S', EAST: 'E', WEST: 'W',
};

/** Upper-case, drop punctuation, collapse whitespace, abbreviate street words. */
function normalizeAddress(text: string): string {
  return text.toUpperCase().replace(/[.,#]/g, ' ').split(/\s+/).filter(Boolean)
    .map((w) => ABBREVIATIONS[w] ?? w).join(' ');
}

/**
 * Premises in the ZIP whose address contains the normalized query, so a house number plus
 * the start of the street name ("1500 MARILLA") finds the premise and unit text narrows it.
 */
export async function searchPremises(zip: string, address: string): Promise<Premise[]> {
  const q = normalizeAddress(address);
  if (!q) return [];
  return (await premisesInZip(zip)).filter((p) => {
    const full = normalizeAddress(`${p.serviceAddress.line1} ${p.serviceAddress.line2 ?? ''}`);
    return full.includes(q);
  });
}

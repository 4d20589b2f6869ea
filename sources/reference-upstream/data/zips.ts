// Which utilities serve a ZIP code. Service areas are approximated by 3-digit ZIP prefixes
// (sectional centers) with explicit 5-digit overrides where areas overlap or a small utility
// serves a single town. Every ZIP under a listed prefix counts as served.
// Sources: the utilities' published service-area maps and town lists (PUCT TDU territory maps,
// PA PUC / PUCO / ICC / NY PSC / MA DPU / NH PUC utility service-area lists, EIA-861 service
// territory data by county), matched to USPS ZIP codes; as of 2026-11. Towns with their own
// municipal utility are found by the ZIP's USPS city (municipal-towns.ts).
import { MUNICIPAL_TOWN_UTILITIES, municipalTown } from './municipal-towns.js';

// prefix or prefix range -> [city used for premise addresses, utilities serving it]
type Area = [city: string, utilityIds: string[]];

const PREFIXES: Record<string, Area> = {
  // Texas
  '750': ['PLANO', ['ONCOR']], '751-753': ['DALLAS', ['ONCOR']], '754': ['GREENVILLE', ['ONCOR']],
  '757': ['TYLER', ['ONCOR']], '758': ['PALESTINE', ['ONCOR']], '759': ['LUFKIN', ['ONCOR']], '760': ['ARLINGTON', ['ONCOR']], '761': ['FORT WORTH', ['ONCOR']],
  '762': ['DENTON', ['ONCOR']], '763': ['WICHITA FALLS', ['ONCOR']], '765': ['KILLEEN', ['ONCOR']],
  '766-767': ['WACO', ['ONCOR']], '797': ['MIDLAND', ['ONCOR']],
  '770-772': ['HOUSTON', ['CENTERPOINT']], '773': ['SPRING', ['CENTERPOINT']], '774': ['SUGAR LAND', ['CENTERPOINT']],
  '775': ['PASADENA', ['CENTERPOINT']],
  '779': ['VICTORIA', ['AEP_TEXAS_CENTRAL']], '780': ['LAREDO', ['AEP_TEXAS_CENTRAL']],
  '783-784': ['CORPUS CHRISTI', ['AEP_TEXAS_CENTRAL']], '785': ['MCALLEN', ['AEP_TEXAS_CENTRAL']],
  '768-769': ['SAN ANGELO', ['AEP_TEXAS_NORTH']], '795-796': ['ABILENE', ['AEP_TEXAS_NORTH']],
  '782': ['SAN ANTONIO', ['CPS_ENERGY']], '786': ['DRIPPING SPRINGS', ['PEDERNALES_EC']], '787': ['AUSTIN', ['AUSTIN_ENERGY']],
  '798-799': ['EL PASO', ['EL_PASO_ELECTRIC']], '794': ['LUBBOCK', ['LUBBOCK_PL']],
  // Pennsylvania
  '150-152': ['PITTSBURGH', ['DUQUESNE']], '159': ['JOHNSTOWN', ['PENELEC']], '165': ['ERIE', ['PENELEC']],
  '166': ['ALTOONA', ['PENELEC']], '170-171': ['HARRISBURG', ['PPL']], '173-174': ['YORK', ['MET_ED']],
  '175-176': ['LANCASTER', ['PPL']], '177': ['WILLIAMSPORT', ['PPL']], '180-181': ['ALLENTOWN', ['PPL']],
  '183': ['STROUDSBURG', ['MET_ED']], '185': ['SCRANTON', ['PPL']], '187': ['WILKES BARRE', ['PPL']],
  '156': ['GREENSBURG', ['WEST_PENN']], '161': ['NEW CASTLE', ['PENN_POWER']], '189': ['DOYLESTOWN', ['PECO']],
  '190': ['BALA CYNWYD', ['PECO']], '191': ['PHILADELPHIA', ['PECO']], '193': ['WEST CHESTER', ['PECO']],
  '194': ['NORRISTOWN', ['PECO']], '195-196': ['READING', ['MET_ED']],
  // Ohio
  '430-432': ['COLUMBUS', ['AEP_OHIO']], '437-438': ['ZANESVILLE', ['AEP_OHIO']], '456': ['CHILLICOTHE', ['AEP_OHIO']],
  '457': ['ATHENS', ['AEP_OHIO']], '434-436': ['TOLEDO', ['TOLEDO_EDISON']], '440-441': ['CLEVELAND', ['CEI']],
  '442-443': ['AKRON', ['FIRSTENERGY_OHIO_EDISON']], '444-445': ['YOUNGSTOWN', ['FIRSTENERGY_OHIO_EDISON']],
  '450-452': ['CINCINNATI', ['DUKE_ENERGY_OHIO']], '453-454': ['DAYTON', ['AES_OHIO']],
  // Illinois
  '600': ['ARLINGTON HEIGHTS', ['COMED']], '601': ['WHEATON', ['COMED']], '602': ['EVANSTON', ['COMED']],
  '603': ['OAK PARK', ['COMED']], '604': ['JOLIET', ['COMED']], '605': ['DOWNERS GROVE', ['COMED']],
  '606-608': ['CHICAGO', ['COMED']], '609': ['KANKAKEE', ['COMED']], '610-611': ['ROCKFORD', ['COMED']],
  '614': ['GALESBURG', ['AMEREN_ILLINOIS']], '615-616': ['PEORIA', ['AMEREN_ILLINOIS']],
  '617': ['BLOOMINGTON', ['AMEREN_ILLINOIS']], '618-619': ['CHAMPAIGN', ['AMEREN_ILLINOIS']],
  '620': ['ALTON', ['AMEREN_ILLINOIS']], '622': ['EAST SAINT LOUIS', ['AMEREN_ILLINOIS']],
  '623': ['QUINCY', ['AMEREN_ILLINOIS']], '624': ['EFFINGHAM', ['AMEREN_ILLINOIS']],
  '625-627': ['SPRINGFIELD', ['AMEREN_ILLINOIS']], '628-629': ['CARBONDALE', ['AMEREN_ILLINOIS']],
  // New York
  '100-102': ['NEW YORK', ['CONED']], '103': ['STATEN ISLAND', ['CONED']], '104': ['BRONX', ['CONED']],
  '105-106': ['WHITE PLAINS', ['CONED']], '107': ['YONKERS', ['CONED']], '108': ['NEW ROCHELLE', ['CONED']],
  '109': ['NEW CITY', ['ORANGE_ROCKLAND']], '112': ['BROOKLYN', ['CONED']], '113-114': ['FLUSHING', ['CONED']],
  '120-122': ['ALBANY', ['NATIONAL_GRID_NY']], '123': ['SCHENECTADY', ['NATIONAL_GRID_NY']],
  '124': ['KINGSTON', ['CENTRAL_HUDSON']], '125-126': ['POUGHKEEPSIE', ['CENTRAL_HUDSON']],
  '128': ['GLENS FALLS', ['NATIONAL_GRID_NY']], '129': ['PLATTSBURGH', ['NYSEG']],
  '130-132': ['SYRACUSE', ['NATIONAL_GRID_NY']], '133-135': ['UTICA', ['NATIONAL_GRID_NY']],
  '136': ['WATERTOWN', ['NATIONAL_GRID_NY']], '137-139': ['BINGHAMTON', ['NYSEG']],
  '140-142': ['BUFFALO', ['NATIONAL_GRID_NY']], '143': ['NIAGARA FALLS', ['NATIONAL_GRID_NY']],
  '144-146': ['ROCHESTER', ['RG_E']], '148': ['ITHACA', ['NYSEG']], '149': ['ELMIRA', ['NYSEG']],
  // New Jersey
  '070-071': ['NEWARK', ['PSEG']], '072': ['ELIZABETH', ['PSEG']], '073': ['JERSEY CITY', ['PSEG']],
  '074': ['WAYNE', ['PSEG']], '075': ['PATERSON', ['PSEG']], '076': ['HACKENSACK', ['PSEG']],
  '077': ['RED BANK', ['JCPL']], '078': ['DOVER', ['JCPL']], '079': ['MORRISTOWN', ['JCPL']],
  '080': ['CHERRY HILL', ['PSEG']], '081': ['CAMDEN', ['PSEG']], '082': ['CAPE MAY', ['ACE']],
  '083': ['MILLVILLE', ['ACE']], '084': ['ATLANTIC CITY', ['ACE']], '085-086': ['TRENTON', ['PSEG']],
  '087': ['LAKEWOOD', ['JCPL']], '088-089': ['NEW BRUNSWICK', ['PSEG']],
  // Maryland
  '206': ['WALDORF', ['SMECO']], '207': ['HYATTSVILLE', ['PEPCO_MD']], '208': ['BETHESDA', ['PEPCO_MD']],
  '209': ['SILVER SPRING', ['PEPCO_MD']], '210-212': ['BALTIMORE', ['BGE']], '214': ['ANNAPOLIS', ['BGE']],
  '215': ['CUMBERLAND', ['POTOMAC_EDISON']], '216': ['EASTON', ['DELMARVA_MD']], '217': ['FREDERICK', ['POTOMAC_EDISON']],
  '218': ['SALISBURY', ['DELMARVA_MD']], '219': ['ELKTON', ['DELMARVA_MD']],
  // Massachusetts
  '010-011': ['SPRINGFIELD', ['EVERSOURCE_MA']], '012': ['PITTSFIELD', ['EVERSOURCE_MA']],
  '014': ['LEOMINSTER', ['NATIONAL_GRID_MA']], '015-016': ['WORCESTER', ['NATIONAL_GRID_MA']],
  '017': ['FRAMINGHAM', ['EVERSOURCE_MA']], '018': ['LOWELL', ['NATIONAL_GRID_MA']], '019': ['LYNN', ['NATIONAL_GRID_MA']],
  '020': ['DEDHAM', ['EVERSOURCE_MA']], '021-022': ['BOSTON', ['EVERSOURCE_MA']], '023': ['BROCKTON', ['NATIONAL_GRID_MA']],
  '024': ['WALTHAM', ['EVERSOURCE_MA']], '026': ['HYANNIS', ['EVERSOURCE_MA']], '027': ['NEW BEDFORD', ['EVERSOURCE_MA']],
  // Connecticut and DC
  '060-061': ['HARTFORD', ['EVERSOURCE_CT']], '062': ['WILLIMANTIC', ['EVERSOURCE_CT']], '063': ['NEW LONDON', ['EVERSOURCE_CT']],
  '064-065': ['NEW HAVEN', ['UI']], '066': ['BRIDGEPORT', ['UI']], '067': ['WATERBURY', ['EVERSOURCE_CT']],
  '068-069': ['STAMFORD', ['EVERSOURCE_CT']],
  // New Hampshire
  '030-031': ['MANCHESTER', ['EVERSOURCE_NH']], '033': ['CONCORD', ['EVERSOURCE_NH']], '038': ['PORTSMOUTH', ['EVERSOURCE_NH']],
  // Delaware and Maine
  '197': ['NEWARK', ['DELMARVA_DE']], '198': ['WILMINGTON', ['DELMARVA_DE']], '199': ['DOVER', ['DELMARVA_DE']],
  '039': ['KITTERY', ['CMP']], '040-041': ['PORTLAND', ['CMP']], '042': ['LEWISTON', ['CMP']], '043': ['AUGUSTA', ['CMP']],
  '044': ['BANGOR', ['VERSANT']], '046': ['ELLSWORTH', ['VERSANT']], '047': ['HOULTON', ['VERSANT']], '049': ['WATERVILLE', ['CMP']],
  '200': ['WASHINGTON', ['PEPCO_DC']], '202-205': ['WASHINGTON', ['PEPCO_DC']],
  // Regulated states
  '900': ['LOS ANGELES', ['LADWP']], '902': ['INGLEWOOD', ['SCE']], '917': ['POMONA', ['SCE']],
  '926-928': ['IRVINE', ['SCE']], '919-921': ['SAN DIEGO', ['SDGE']], '936-937': ['FRESNO', ['PGE']],
  '940': ['SAN MATEO', ['PGE']], '941': ['SAN FRANCISCO', ['PGE']], '945-946': ['OAKLAND', ['PGE']],
  '950-951': ['SAN JOSE', ['PGE']],
  '850': ['PHOENIX', ['APS']], '853': ['GLENDALE', ['APS']], '860': ['FLAGSTAFF', ['APS']],
  '330-332': ['MIAMI', ['FPL']], '333': ['FORT LAUDERDALE', ['FPL']], '334': ['WEST PALM BEACH', ['FPL']],
  '339': ['FORT MYERS', ['FPL']], '336': ['TAMPA', ['TECO']], '337': ['SAINT PETERSBURG', ['DUKE_ENERGY_FLORIDA']],
  '327': ['LAKE MARY', ['DUKE_ENERGY_FLORIDA']], '322': ['JACKSONVILLE', ['JEA']],
  '300-303': ['ATLANTA', ['GEORGIA_POWER']], '305': ['GAINESVILLE', ['GEORGIA_POWER']],
  '310': ['MACON', ['GEORGIA_POWER']], '312': ['MACON', ['GEORGIA_POWER']], '314': ['SAVANNAH', ['GEORGIA_POWER']],
  '480-481': ['ROYAL OAK', ['DTE_ELECTRIC']], '482': ['DETROIT', ['DTE_ELECTRIC']],
  '800-802': ['DENVER', ['XCEL_COLORADO']], '803': ['BOULDER', ['XCEL_COLORADO']],
  '980': ['BELLEVUE', ['PUGET_SOUND_ENERGY']], '981': ['SEATTLE', ['SEATTLE_CITY_LIGHT']], '985': ['OLYMPIA', ['PUGET_SOUND_ENERGY']],
};

// Overlapping service areas and single-town utilities; these replace the prefix entry.
const OVERRIDES: Record<string, Area> = {
  '75001': ['ADDISON', ['ONCOR']],
  '75067': ['LEWISVILLE', ['ONCOR', 'TNMP']],
  '76226': ['ARGYLE', ['ONCOR', 'COSERV']],
  '76227': ['AUBREY', ['COSERV']],
  '78660': ['PFLUGERVILLE', ['ONCOR']],
  '78664': ['ROUND ROCK', ['ONCOR', 'PEDERNALES_EC']],
  '77546': ['FRIENDSWOOD', ['CENTERPOINT', 'TNMP']],
  '77573': ['LEAGUE CITY', ['TNMP']],
  '77590': ['TEXAS CITY', ['TNMP']],
  '17042': ['LEBANON', ['PPL', 'MET_ED']],
  '44113': ['CLEVELAND', ['CEI', 'CLEVELAND_PUBLIC_POWER']],
  '44114': ['CLEVELAND', ['CEI', 'CLEVELAND_PUBLIC_POWER']],
  // Springfield, IL: the city's municipal utility, no retail choice
  '62701': ['SPRINGFIELD', ['CWLP']], '62702': ['SPRINGFIELD', ['CWLP']], '62703': ['SPRINGFIELD', ['CWLP']], '62704': ['SPRINGFIELD', ['CWLP']],
  '10940': ['MIDDLETOWN', ['ORANGE_ROCKLAND', 'CENTRAL_HUDSON']],
  '07430': ['MAHWAH', ['ROCKLAND_ELECTRIC']],
  '07446': ['RAMSEY', ['ROCKLAND_ELECTRIC', 'PSEG']],
  '20707': ['LAUREL', ['BGE', 'PEPCO_MD']],
  '01420': ['FITCHBURG', ['UNITIL_MA']],
  '01462': ['LUNENBURG', ['UNITIL_MA']],
  '02184': ['BRAINTREE', ['BRAINTREE_ELECTRIC']],
  // Waltham is National Grid (Massachusetts Electric), not Eversource like the rest of 024.
  '02451': ['WALTHAM', ['NATIONAL_GRID_MA']], '02452': ['WALTHAM', ['NATIONAL_GRID_MA']],
  '02453': ['WALTHAM', ['NATIONAL_GRID_MA']], '02454': ['WALTHAM', ['NATIONAL_GRID_MA']],
  // Concord, NH is Unitil Energy Systems.
  '03301': ['CONCORD', ['UNITIL_NH']], '03303': ['CONCORD', ['UNITIL_NH']],
  // The City of Plattsburgh's municipal utility.
  '12901': ['PLATTSBURGH', ['PLATTSBURGH_MLD']],
  '30043': ['LAWRENCEVILLE', ['GEORGIA_POWER', 'JACKSON_EMC']],
  '30549': ['JEFFERSON', ['JACKSON_EMC']],
};

// Expand "751-753" style keys once so lookups are a single map read.
const BY_PREFIX = new Map<string, Area>();
for (const [key, area] of Object.entries(PREFIXES)) {
  const [from, to = from] = key.split('-') as [string, string?];
  for (let p = Number(from); p <= Number(to); p++) {
    const prefix = String(p).padStart(3, '0');
    if (BY_PREFIX.has(prefix)) throw new Error(`ZIP prefix ${prefix} listed twice`);
    BY_PREFIX.set(prefix, area);
  }
}

export const ZIP_PATTERN = /^\d{5}$/;

async function areaFor(zip: string): Promise<Area | undefined> {
  const override = OVERRIDES[zip];
  if (override) return override;
  const prefix = BY_PREFIX.get(zip.slice(0, 3));
  if (!prefix) return undefined;
  // A municipal town inside a covered prefix; the prefix's utility no longer serves it.
  const town = await municipalTown(zip);
  return town ? [town.city, [town.utilityId]] : prefix;
}

/** Utility ids serving the ZIP, in a stable order; empty when the ZIP is not covered. */
export async function utilityIdsForZip(zip: string): Promise<string[]> {
  return [...((await areaFor(zip))?.[1] ?? [])];
}

export async function cityForZip(zip: string): Promise<string | undefined> {
  return (await areaFor(zip))?.[0];
}

/** Every utility id referenced by the tables, for consistency checks. */
export function referencedUtilityIds(): Set<string> {
  const ids = new Set<string>();
  for (const [, list] of [...Object.values(PREFIXES), ...Object.values(OVERRIDES)]) list.forEach((id) => ids.add(id));
  MUNICIPAL_TOWN_UTILITIES.forEach((id) => ids.add(id));
  return ids;
}

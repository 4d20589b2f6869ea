// Resolvers of the public schema (schema/public.graphql). Feeds are reached through the bindings
// declared in .meshrc.yaml; everything the spec defines on top is computed here.
import type { GraphQLResolveInfo } from 'graphql';
import type { Territory } from '../domain/canonical.js';
import type { ResolverContext } from './context.js';
import { badUserInput } from './errors.js';
import { fetchFeed, fetchOffers, soleFeed } from './feed-client.js';
import { bySortKey, businessPlan, offersFor, residentialPlan } from './plans.js';
import { compliantOffers } from './compliance.js';
import { coverage } from './coverage.js';
import { stateStats } from './state-stats.js';
import { MAX_REQUEST_AHEAD_DAYS, switchDate, UnknownCycleError } from '../domain/start-date.js';
import { localToday, onStartDates, switchInput } from './territory-dates.js';
import { utility } from './utility.js';
import { generationMix, SOURCE_BY_FEED_KEY } from '../domain/energy-mix.js';
import { microToNumber } from '../domain/money.js';
import { MAX_MONTHLY_KWH, spreadByShape } from '../domain/annual-cost.js';
import * as v from '../domain/validation.js';
import { LocalDateResolver } from 'graphql-scalars';
import { feedEnum } from './enum-values.js';

type Args = Record<string, unknown>;

/** A well-formed ZIP that USPS never assigns. */
const NO_ZIP = '00000';

/** Resolves a field its record holds as a function of the field's arguments. */
function whenSelected(field: string) {
  return (record: Record<string, (args: Args) => unknown>, args: Args) => record[field]!(args);
}

/** Runs a validator; its InputError becomes BAD_USER_INPUT naming the argument. */
function arg<T>(name: string, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof v.InputError) throw badUserInput(err.message, name);
    throw err;
  }
}

function pathOf(info: GraphQLResolveInfo): (string | number)[] {
  const out: (string | number)[] = [];
  for (let p: GraphQLResolveInfo['path'] | undefined = info.path; p; p = p.prev) out.unshift(p.key);
  return out;
}

async function territories(ctx: ResolverContext, zipCode: string): Promise<Territory[]> {
  return fetchFeed(ctx, soleFeed(ctx, 'territories'), { zipCode });
}

/** Deregulated territories of the ZIP, narrowed to `utilityId` when given (which must serve the ZIP). */
async function choiceTerritories(ctx: ResolverContext, zipCode: string, utilityId: string | undefined) {
  const all = await territories(ctx, zipCode);
  if (utilityId !== undefined) {
    const match = all.filter((t) => t.utilityId === utilityId);
    if (match.length === 0) {
      throw badUserInput(`Utility ${utilityId} does not serve ZIP code ${zipCode}; ask \`utilities\` for the ids that do.`, 'utilityId');
    }
    return match.filter((t) => t.market === 'DEREGULATED');
  }
  return all.filter((t) => t.market === 'DEREGULATED');
}

/** Canonical records key generation by category name (NATURAL_GAS); the mix function takes feed keys (naturalGas). */
function byFeedKey(mwh: Partial<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [source, value] of Object.entries(mwh)) {
    const key = source.toLowerCase().replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    if (Object.hasOwn(SOURCE_BY_FEED_KEY, key) && typeof value === 'number') out[key] = value;
  }
  return out;
}

type YearOfUsage = { profile: number[] } | { annualKwh: number } | null;

/** `usageProfile` or `annualUsageKwh` (not both), checked before any feed is called. */
function yearOfUsage(args: Args): YearOfUsage {
  const profile = arg('usageProfile', () => v.usageProfile(args.usageProfile));
  const annualKwh = arg('annualUsageKwh', () => v.annualUsageKwh(args.annualUsageKwh));
  if (profile && annualKwh !== null) {
    throw badUserInput('Invalid usageProfile: give either usageProfile or annualUsageKwh, not both.', 'usageProfile');
  }
  return profile ? { profile } : annualKwh !== null ? { annualKwh } : null;
}

/**
 * The twelve monthly usages to price each served state's plans at: the partner's profile as is, or
 * annualUsageKwh spread by each state's typical monthly residential shape (one feed call a state).
 */
async function profilesByState(ctx: ResolverContext, usage: YearOfUsage, served: Territory[]): Promise<(state: string) => number[] | null> {
  if (!usage) return () => null;
  if ('profile' in usage) return () => usage.profile;
  const states = [...new Set(served.map((t) => t.state))];
  const feed = soleFeed(ctx, 'usageShape');
  const shapes = await Promise.all(states.map((state) => fetchFeed(ctx, feed, { state })));
  const byState = new Map<string, number[]>();
  states.forEach((state, i) => {
    const shape = shapes[i]!.find((s) => s.state === state);
    if (!shape) {
      throw badUserInput(
        `Invalid annualUsageKwh: no typical monthly usage shape is available for ${state}; send usageProfile with twelve monthly values instead.`,
        'annualUsageKwh',
      );
    }
    const months = spreadByShape(usage.annualKwh, shape.monthlyMwh);
    if (months.some((kwh) => kwh > MAX_MONTHLY_KWH)) {
      throw badUserInput(
        `Invalid annualUsageKwh: spread over ${state}'s typical year it puts more than ${MAX_MONTHLY_KWH} kWh in a month; send usageProfile instead.`,
        'annualUsageKwh',
      );
    }
    byState.set(state, months);
  });
  return (state) => byState.get(state) ?? null;
}

const addDays = (isoDate: string, days: number) =>
  new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

export const resolvers = {
  // graphql-scalars' coercion and the SDL's description. @specifiedBy is set here: Mesh's schema
  // merge keeps the SDL directive's node but not the URL introspection reports.
  LocalDate: (({ serialize, parseValue, parseLiteral }) => ({
    serialize,
    parseValue,
    parseLiteral,
    specifiedByURL: 'https://www.rfc-editor.org/rfc/rfc3339#section-5.6',
  }))(LocalDateResolver.toConfig()),
  // Fields a record holds as functions, computed only when selected (resolvers/plans.ts,
  // utility.ts). Every other field of the public types has no resolver and is read as a property
  // (mesh/public-field-resolvers.ts), so these must be named here.
  Utility: {
    ownership: feedEnum('ownership'),
    deliveryCharges: whenSelected('deliveryCharges'),
    priceToCompare: whenSelected('priceToCompare'),
    pricesToCompare: whenSelected('pricesToCompare'),
  },
  Plan: {
    rates: whenSelected('rates'),
    rateSpread: whenSelected('rateSpread'),
    pricing: whenSelected('pricing'),
    fees: whenSelected('fees'),
    headlessEnrollmentUrl: whenSelected('headlessEnrollmentUrl'),
  },
  BusinessPlan: { fees: whenSelected('fees') },
  UtilityAccount: {
    idType: feedEnum('idType'),
    meterType: feedEnum('meterType'),
    status: feedEnum('status'),
    premiseType: feedEnum('premiseType'),
  },
  Query: {
    utilities: async (_: unknown, args: Args, ctx: ResolverContext) => {
      const zipCode = arg('zipCode', () => v.zipCode(args.zipCode));
      return (await territories(ctx, zipCode)).map((t) => utility(ctx, t));
    },

    coverage: async (_: unknown, args: Args, ctx: ResolverContext) => {
      // 00000 is refused as input elsewhere; here it is the example of what the answer NOT_A_ZIP is for.
      if (args.zipCode === NO_ZIP) return coverage(ctx, NO_ZIP, []);
      const zipCode = arg('zipCode', () => v.zipCode(args.zipCode));
      return coverage(ctx, zipCode, await territories(ctx, zipCode));
    },

    residentialPlans: async (_: unknown, args: Args, ctx: ResolverContext, info: GraphQLResolveInfo) => {
      const zipCode = arg('zipCode', () => v.zipCode(args.zipCode));
      const monthlyUsage = arg('monthlyUsage', () => v.monthlyUsage(args.monthlyUsage)) ?? undefined;
      const utilityId = arg('utilityId', () => (args.utilityId == null ? undefined : v.utilityId(args.utilityId)));
      const usage = yearOfUsage(args);
      const served = await choiceTerritories(ctx, zipCode, utilityId);
      if (served.length === 0) return [];
      const [fetched, profileOf] = await Promise.all([
        fetchOffers(ctx, served, { zipCode, utilityId, customerClass: 'RESIDENTIAL' }, pathOf(info)),
        profilesByState(ctx, usage, served),
      ]);
      const offers = compliantOffers(ctx, fetched, served);
      // Priced with the delivery charges and compared with the Price to Compare in effect on the start date.
      return offersFor(offers, onStartDates(ctx, served), 'RESIDENTIAL')
        .map(({ offer, delivery, territory }) =>
          residentialPlan(
            offer,
            delivery,
            zipCode,
            monthlyUsage,
            ctx.settings,
            ctx.partnerCode,
            territory.priceToCompare,
            profileOf(territory.state),
          ),
        )
        .sort(bySortKey);
    },

    businessPlans: async (_: unknown, args: Args, ctx: ResolverContext, info: GraphQLResolveInfo) => {
      const zipCode = arg('zipCode', () => v.zipCode(args.zipCode));
      const annualUsage = arg('annualUsage', () => v.annualUsage(args.annualUsage));
      const utilityId = arg('utilityId', () => (args.utilityId == null ? undefined : v.utilityId(args.utilityId)));
      const served = await choiceTerritories(ctx, zipCode, utilityId);
      if (served.length === 0) return [];
      const offers = compliantOffers(
        ctx,
        await fetchOffers(ctx, served, { zipCode, utilityId, customerClass: 'COMMERCIAL' }, pathOf(info)),
        served,
      );
      return offersFor(offers, onStartDates(ctx, served), 'COMMERCIAL')
        .map(({ offer, delivery }) => businessPlan(offer, delivery, annualUsage))
        .sort(bySortKey);
    },

    nextStartDate: async (_: unknown, args: Args, ctx: ResolverContext) => {
      const zipCode = arg('zipCode', () => v.zipCode(args.zipCode));
      const utilityId = arg('utilityId', () => (args.utilityId == null ? undefined : v.utilityId(args.utilityId)));
      const requestedDate = arg('requestedDate', () =>
        args.requestedDate == null ? undefined : v.isoDate(args.requestedDate, 'requestedDate'),
      );
      const meterReadCycle = arg('meterReadCycle', () => (args.meterReadCycle == null ? undefined : v.meterReadCycle(args.meterReadCycle)));
      const [territory] = await choiceTerritories(ctx, zipCode, utilityId);
      if (!territory) return null;
      const { switching } = territory;
      const maxAhead = MAX_REQUEST_AHEAD_DAYS[switching.kind];
      if (requestedDate !== undefined && requestedDate > addDays(localToday(ctx, territory), maxAhead)) {
        throw badUserInput(
          switching.kind === 'OFF_CYCLE'
            ? `requestedDate may be at most ${maxAhead} days ahead: ERCOT does not accept a switch request for a later date.`
            : `requestedDate may be at most ${maxAhead} days ahead.`,
          'requestedDate',
        );
      }
      let start;
      try {
        start = switchDate(switchInput(ctx, territory, { requestedDate, accountCycle: meterReadCycle }));
      } catch (err) {
        if (!(err instanceof UnknownCycleError)) throw err;
        const known = (switching.meterReadCycles ?? []).map((c) => c.cycle);
        throw badUserInput(
          `Meter-read cycle ${meterReadCycle} is not one of ${territory.utilityId}'s cycles (${known.join(', ')}); ` +
            "leave it out to get the earliest cycle's read.",
          'meterReadCycle',
        );
      }
      return {
        date: start.date,
        rule: start.rule,
        meterReadDate: start.meterReadDate,
        meterReadCycle: start.meterReadCycle ?? null,
        meterReadBasis: start.meterReadBasis ?? null,
        rescissionDays: switching.rescissionDays ?? 0,
        requestedDate: requestedDate ?? null,
        utilityId: territory.utilityId,
        timeZone: territory.timeZone,
        leadBusinessDays: switching.leadBusinessDays,
      };
    },

    energyInfoByState: async (_: unknown, args: Args, ctx: ResolverContext) => {
      const state = arg('state', () => v.state(args.state));
      const stats = await stateStats(ctx, state);
      if (!stats) throw badUserInput(`No energy statistics are available for ${state}.`, 'state');
      return {
        state: stats.state,
        name: stats.name,
        dataYear: stats.year,
        source: stats.source,
        estimated: stats.estimated,
        averageResidentialRateUsdPerKwh: microToNumber(stats.residentialMicroPerKwh, 6),
        averageCommercialRateUsdPerKwh: microToNumber(stats.commercialMicroPerKwh, 6),
        generationMix: generationMix(byFeedKey(stats.generationMwh)),
      };
    },

    utilityAccounts: async (_: unknown, args: Args, ctx: ResolverContext) => {
      const address = arg('address', () => v.address(args.address));
      const zipCode = arg('zipCode', () => v.zipCode(args.zipCode));
      const accounts = await fetchFeed(ctx, soleFeed(ctx, 'premises'), { zipCode, address });
      return accounts.map((a) => ({
        accountId: a.accountId,
        idType: a.idType,
        serviceAddress: a.address,
        utilityId: a.utilityId,
        meterType: a.meterType,
        status: a.status,
        premiseType: a.premiseType,
        meterReadCycle: a.meterReadCycle ?? null,
      }));
    },
  },
};

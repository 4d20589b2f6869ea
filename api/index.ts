// Resolvers of the public schema (schema/public.graphql). Feeds are reached through the bindings
// declared in .meshrc.yaml; everything the spec defines on top is computed here.
import type { GraphQLResolveInfo } from 'graphql';
import type { Territory } from '../domain/canonical.js';
import type { ResolverContext } from './context.js';
import { badUserInput } from './errors.js';
import { fetchFeed, fetchOffers, soleFeed } from './feed-client.js';
import { bySortKey, businessPlan, offersFor, residentialPlan } from './plans.js';
import { nextStartDate } from '../domain/start-date.js';
import { generationMix, SOURCE_BY_FEED_KEY } from '../domain/energy-mix.js';
import { microToNumber } from '../domain/money.js';
import * as v from '../domain/validation.js';

type Args = Record<string, unknown>;

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

const FEED_KEY_BY_SOURCE = new Map(Object.entries(SOURCE_BY_FEED_KEY).map(([k, v]) => [v as string, k]));

/** Canonical records key generation by source enum; the mix function takes the EIA feed keys. */
function byFeedKey(mwh: Partial<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [source, value] of Object.entries(mwh)) {
    const key = FEED_KEY_BY_SOURCE.get(source);
    if (key && typeof value === 'number') out[key] = value;
  }
  return out;
}

export const resolvers = {
  Query: {
    utilities: async (_: unknown, args: Args, ctx: ResolverContext) => {
      const zipCode = arg('zipCode', () => v.zipCode(args.zipCode));
      return (await territories(ctx, zipCode)).map((t) => ({
        id: t.utilityId,
        name: t.name,
        state: t.state,
        market: t.market,
        ownership: t.ownership,
        timeZone: t.timeZone,
        deliveryCharges: {
          fixedMonthlyUsd: microToNumber(t.delivery.fixedMonthlyMicro, 2),
          perKwhUsd: microToNumber(t.delivery.perKwhMicro, 6),
        },
      }));
    },

    residentialPlans: async (_: unknown, args: Args, ctx: ResolverContext, info: GraphQLResolveInfo) => {
      const zipCode = arg('zipCode', () => v.zipCode(args.zipCode));
      const monthlyUsage = arg('monthlyUsage', () => v.monthlyUsage(args.monthlyUsage)) ?? undefined;
      const utilityId = arg('utilityId', () => (args.utilityId == null ? undefined : v.utilityId(args.utilityId)));
      const served = await choiceTerritories(ctx, zipCode, utilityId);
      if (served.length === 0) return [];
      const offers = await fetchOffers(ctx, served, { zipCode, utilityId, customerClass: 'RESIDENTIAL' }, pathOf(info));
      return offersFor(offers, served, 'RESIDENTIAL')
        .map(({ offer, delivery }) => residentialPlan(offer, delivery, zipCode, monthlyUsage, ctx.settings, ctx.partnerCode))
        .sort(bySortKey);
    },

    businessPlans: async (_: unknown, args: Args, ctx: ResolverContext, info: GraphQLResolveInfo) => {
      const zipCode = arg('zipCode', () => v.zipCode(args.zipCode));
      const annualUsage = arg('annualUsage', () => v.annualUsage(args.annualUsage));
      const utilityId = arg('utilityId', () => (args.utilityId == null ? undefined : v.utilityId(args.utilityId)));
      const served = await choiceTerritories(ctx, zipCode, utilityId);
      if (served.length === 0) return [];
      const offers = await fetchOffers(ctx, served, { zipCode, utilityId, customerClass: 'COMMERCIAL' }, pathOf(info));
      return offersFor(offers, served, 'COMMERCIAL')
        .map(({ offer, delivery }) => businessPlan(offer, delivery, annualUsage))
        .sort(bySortKey);
    },

    nextStartDate: async (_: unknown, args: Args, ctx: ResolverContext) => {
      const zipCode = arg('zipCode', () => v.zipCode(args.zipCode));
      const utilityId = arg('utilityId', () => (args.utilityId == null ? undefined : v.utilityId(args.utilityId)));
      const [territory] = await choiceTerritories(ctx, zipCode, utilityId);
      if (!territory) return null;
      return {
        date: nextStartDate({
          now: ctx.now(),
          timeZone: territory.timeZone,
          leadBusinessDays: territory.switching.leadBusinessDays,
          holidays: territory.holidays,
          sameDayCutoff: territory.switching.sameDayCutoff,
        }),
        utilityId: territory.utilityId,
        timeZone: territory.timeZone,
        leadBusinessDays: territory.switching.leadBusinessDays,
      };
    },

    energyInfoByState: async (_: unknown, args: Args, ctx: ResolverContext) => {
      const state = arg('state', () => v.state(args.state));
      const [stats] = await fetchFeed(ctx, soleFeed(ctx, 'stateStats'), { state });
      if (!stats) throw badUserInput(`No energy statistics are available for ${state}.`, 'state');
      return {
        state: stats.state,
        name: stats.name,
        dataYear: stats.year,
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
      }));
    },
  },
};

export default resolvers;

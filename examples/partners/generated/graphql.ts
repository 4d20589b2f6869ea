/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** Kind of identifier of a service account. */
export type AccountIdType =
  /** The utility's own account number. */
  | 'ACCOUNT_NUMBER'
  /** Texas Electric Service Identifier (17 to 22 digits), used to switch suppliers in ERCOT. */
  | 'ESIID'
  /** An identifier kind this API does not know yet (a feed sent a new value). */
  | 'OTHER';

/** Service status of an account. */
export type AccountStatus =
  /** Energized and in service. */
  | 'ACTIVE'
  /** Not in service (e.g. move-out, disconnected). */
  | 'INACTIVE'
  /** A status this API does not know yet (a feed sent a new value). */
  | 'OTHER';

/** Whether a ZIP code is served, and with retail choice. */
export type CoverageStatus =
  /** Not a US ZIP code (e.g. 00000): well-formed, but no such ZIP exists. */
  | 'NOT_A_ZIP'
  /** A real US ZIP code that no configured feed covers yet: no utilities, no plans. */
  | 'NOT_COVERED'
  /** Served, but only by utilities without retail choice (municipal, co-op, regulated): no plans. */
  | 'NO_CHOICE'
  /** A utility with retail choice (market DEREGULATED) serves the ZIP: plans are offered. */
  | 'RETAIL_CHOICE';

/**
 * EIA's primary energy source categories for net generation (State Electricity Profiles). Wind and
 * solar are part of OTHER_RENEWABLES, as in EIA's tables.
 */
export type GenerationSource =
  /** Coal */
  | 'COAL'
  /** Hydroelectric Conventional */
  | 'HYDRO'
  /** Natural Gas */
  | 'NATURAL_GAS'
  /** Nuclear */
  | 'NUCLEAR'
  /** Other */
  | 'OTHER'
  /** Other Gases (blast furnace gas, refinery gas and other manufactured gases) */
  | 'OTHER_GASES'
  /** Other Renewables: wind, solar, biomass, geothermal */
  | 'OTHER_RENEWABLES'
  /** Petroleum */
  | 'PETROLEUM'
  /** Pumped Storage: net generation, zero or negative (the plants use more energy than they return) */
  | 'PUMPED_STORAGE'
  /** Solar: never returned (EIA reports it within OTHER_RENEWABLES). */
  | 'SOLAR'
  /** Wind: never returned (EIA reports it within OTHER_RENEWABLES). */
  | 'WIND';

/** Whether customers in a territory choose their retail electricity supplier. */
export type Market =
  /** Retail choice: customers pick a supplier; plans are offered. */
  | 'DEREGULATED'
  /** No retail choice: the utility supplies the power; no plans are offered. */
  | 'REGULATED';

/** Kind of electricity meter. */
export type MeterType =
  /** Advanced metering infrastructure (smart meter with two-way communication). */
  | 'AMI'
  /** Automated meter reading (one-way drive-by or walk-by reads). */
  | 'AMR'
  /** Advanced metering system (Texas smart meter): interval reads, remote connect. */
  | 'AMS'
  /** A meter type this API does not know yet (a feed sent a new value). */
  | 'OTHER'
  /** The utility did not report the meter type. */
  | 'UNKNOWN';

/** Ownership of a utility. */
export type Ownership =
  /** Member-owned electric cooperative. */
  | 'COOP'
  /** Investor-owned utility. */
  | 'IOU'
  /** Owned by a city or town. */
  | 'MUNICIPAL'
  /** A kind of ownership this API does not know yet (a feed sent a new value). Treat it like a missing value. */
  | 'OTHER';

/** Kind of premise at a service address. */
export type PremiseType =
  /** A business. */
  | 'COMMERCIAL'
  /** A premise type this API does not know yet (a feed sent a new value). */
  | 'OTHER'
  /** A home. */
  | 'RESIDENTIAL';

/** How a plan's energy price is set. */
export type RateType =
  /** One energy price for the whole contract term. */
  | 'FIXED'
  /** The price follows a published index (e.g. wholesale prices) by a stated formula. */
  | 'INDEXED'
  /** Paid in advance; usage draws down the balance. */
  | 'PREPAID'
  /** The price depends on the time of day or day of week of the usage. */
  | 'TIME_OF_USE'
  /** The supplier may change the price from month to month. */
  | 'VARIABLE';

export type UtilitiesQueryVariables = Exact<{
  zipCode: string;
}>;


export type UtilitiesQuery = { utilities: Array<{ id: string, name: string, state: string, market: Market, ownership: Ownership, timeZone: string, deliveryCharges: { fixedMonthlyUsd: number, perKwhUsd: number } | null }> };

export type ResidentialPlansQueryVariables = Exact<{
  zipCode: string;
  monthlyUsage?: number | null | undefined;
  utilityId?: string | null | undefined;
  withFees?: boolean | null | undefined;
}>;


export type ResidentialPlansQuery = { residentialPlans: Array<{ id: string, title: string, price: number, term: number, rateType: RateType, renewablePercent: number, headlessEnrollmentUrl: string, supplier: { name: string }, rates: Array<{ usageKwh: number, allInRateUsdPerKwh: number, avgMonthlyBillUsd: number }>, fees?: { cancellationUsd: number, enrollmentUsd: number, baseMonthlyUsd: number, minimumUsageFeeUsd: number | null, minimumUsageKwh: number | null, usageCredits: Array<{ minKwh: number, creditUsd: number }> } }> };

export type BusinessPlansQueryVariables = Exact<{
  zipCode: string;
  annualUsage: number;
  utilityId?: string | null | undefined;
}>;


export type BusinessPlansQuery = { businessPlans: Array<{ id: string, title: string, price: number, term: number, rateType: RateType, annualUsageKwh: number, estimatedAnnualCostUsd: number, supplier: { name: string }, rates: Array<{ usageKwh: number, allInRateUsdPerKwh: number, avgMonthlyBillUsd: number }> }> };

export type NextStartDateQueryVariables = Exact<{
  zipCode: string;
  utilityId?: string | null | undefined;
}>;


export type NextStartDateQuery = { nextStartDate: { date: string, utilityId: string, timeZone: string, leadBusinessDays: number } | null };

export type EnergyInfoByStateQueryVariables = Exact<{
  state: string;
}>;


export type EnergyInfoByStateQuery = { energyInfoByState: { state: string, name: string, dataYear: number, averageResidentialRateUsdPerKwh: number, averageCommercialRateUsdPerKwh: number, generationMix: Array<{ source: GenerationSource, percent: number }> } };

export type CoverageQueryVariables = Exact<{
  zipCode: string;
}>;


export type CoverageQuery = { coverage: { zipCode: string, status: CoverageStatus, utilities: Array<{ id: string, name: string, market: Market, ownership: Ownership }> } };

export type UtilityAccountsQueryVariables = Exact<{
  address: string;
  zipCode: string;
}>;


export type UtilityAccountsQuery = { utilityAccounts: Array<{ accountId: string, idType: AccountIdType, utilityId: string, meterType: MeterType, status: AccountStatus, premiseType: PremiseType | null, serviceAddress: { line1: string, line2: string | null, city: string, state: string, zip: string } }> };


export const UtilitiesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Utilities"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"zipCode"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"utilities"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"zipCode"},"value":{"kind":"Variable","name":{"kind":"Name","value":"zipCode"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"market"}},{"kind":"Field","name":{"kind":"Name","value":"ownership"}},{"kind":"Field","name":{"kind":"Name","value":"timeZone"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryCharges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"fixedMonthlyUsd"}},{"kind":"Field","name":{"kind":"Name","value":"perKwhUsd"}}]}}]}}]}}]} as unknown as DocumentNode<UtilitiesQuery, UtilitiesQueryVariables>;
export const ResidentialPlansDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ResidentialPlans"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"zipCode"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"monthlyUsage"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"utilityId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"withFees"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}},"defaultValue":{"kind":"BooleanValue","value":true}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"residentialPlans"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"zipCode"},"value":{"kind":"Variable","name":{"kind":"Name","value":"zipCode"}}},{"kind":"Argument","name":{"kind":"Name","value":"monthlyUsage"},"value":{"kind":"Variable","name":{"kind":"Name","value":"monthlyUsage"}}},{"kind":"Argument","name":{"kind":"Name","value":"utilityId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"utilityId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"term"}},{"kind":"Field","name":{"kind":"Name","value":"rateType"}},{"kind":"Field","name":{"kind":"Name","value":"renewablePercent"}},{"kind":"Field","name":{"kind":"Name","value":"supplier"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"Field","name":{"kind":"Name","value":"rates"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"usageKwh"}},{"kind":"Field","name":{"kind":"Name","value":"allInRateUsdPerKwh"}},{"kind":"Field","name":{"kind":"Name","value":"avgMonthlyBillUsd"}}]}},{"kind":"Field","name":{"kind":"Name","value":"fees"},"directives":[{"kind":"Directive","name":{"kind":"Name","value":"include"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"if"},"value":{"kind":"Variable","name":{"kind":"Name","value":"withFees"}}}]}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cancellationUsd"}},{"kind":"Field","name":{"kind":"Name","value":"enrollmentUsd"}},{"kind":"Field","name":{"kind":"Name","value":"baseMonthlyUsd"}},{"kind":"Field","name":{"kind":"Name","value":"minimumUsageFeeUsd"}},{"kind":"Field","name":{"kind":"Name","value":"minimumUsageKwh"}},{"kind":"Field","name":{"kind":"Name","value":"usageCredits"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"minKwh"}},{"kind":"Field","name":{"kind":"Name","value":"creditUsd"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"headlessEnrollmentUrl"}}]}}]}}]} as unknown as DocumentNode<ResidentialPlansQuery, ResidentialPlansQueryVariables>;
export const BusinessPlansDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"BusinessPlans"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"zipCode"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"annualUsage"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"utilityId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"businessPlans"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"zipCode"},"value":{"kind":"Variable","name":{"kind":"Name","value":"zipCode"}}},{"kind":"Argument","name":{"kind":"Name","value":"annualUsage"},"value":{"kind":"Variable","name":{"kind":"Name","value":"annualUsage"}}},{"kind":"Argument","name":{"kind":"Name","value":"utilityId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"utilityId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"term"}},{"kind":"Field","name":{"kind":"Name","value":"rateType"}},{"kind":"Field","name":{"kind":"Name","value":"supplier"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"Field","name":{"kind":"Name","value":"annualUsageKwh"}},{"kind":"Field","name":{"kind":"Name","value":"estimatedAnnualCostUsd"}},{"kind":"Field","name":{"kind":"Name","value":"rates"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"usageKwh"}},{"kind":"Field","name":{"kind":"Name","value":"allInRateUsdPerKwh"}},{"kind":"Field","name":{"kind":"Name","value":"avgMonthlyBillUsd"}}]}}]}}]}}]} as unknown as DocumentNode<BusinessPlansQuery, BusinessPlansQueryVariables>;
export const NextStartDateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"NextStartDate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"zipCode"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"utilityId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nextStartDate"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"zipCode"},"value":{"kind":"Variable","name":{"kind":"Name","value":"zipCode"}}},{"kind":"Argument","name":{"kind":"Name","value":"utilityId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"utilityId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"date"}},{"kind":"Field","name":{"kind":"Name","value":"utilityId"}},{"kind":"Field","name":{"kind":"Name","value":"timeZone"}},{"kind":"Field","name":{"kind":"Name","value":"leadBusinessDays"}}]}}]}}]} as unknown as DocumentNode<NextStartDateQuery, NextStartDateQueryVariables>;
export const EnergyInfoByStateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"EnergyInfoByState"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"state"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"energyInfoByState"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"state"},"value":{"kind":"Variable","name":{"kind":"Name","value":"state"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"dataYear"}},{"kind":"Field","name":{"kind":"Name","value":"averageResidentialRateUsdPerKwh"}},{"kind":"Field","name":{"kind":"Name","value":"averageCommercialRateUsdPerKwh"}},{"kind":"Field","name":{"kind":"Name","value":"generationMix"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"percent"}}]}}]}}]}}]} as unknown as DocumentNode<EnergyInfoByStateQuery, EnergyInfoByStateQueryVariables>;
export const CoverageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Coverage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"zipCode"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"coverage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"zipCode"},"value":{"kind":"Variable","name":{"kind":"Name","value":"zipCode"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"zipCode"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"utilities"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"market"}},{"kind":"Field","name":{"kind":"Name","value":"ownership"}}]}}]}}]}}]} as unknown as DocumentNode<CoverageQuery, CoverageQueryVariables>;
export const UtilityAccountsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"UtilityAccounts"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"address"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"zipCode"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"utilityAccounts"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"address"},"value":{"kind":"Variable","name":{"kind":"Name","value":"address"}}},{"kind":"Argument","name":{"kind":"Name","value":"zipCode"},"value":{"kind":"Variable","name":{"kind":"Name","value":"zipCode"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"accountId"}},{"kind":"Field","name":{"kind":"Name","value":"idType"}},{"kind":"Field","name":{"kind":"Name","value":"utilityId"}},{"kind":"Field","name":{"kind":"Name","value":"meterType"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"premiseType"}},{"kind":"Field","name":{"kind":"Name","value":"serviceAddress"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"line1"}},{"kind":"Field","name":{"kind":"Name","value":"line2"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"zip"}}]}}]}}]}}]} as unknown as DocumentNode<UtilityAccountsQuery, UtilityAccountsQueryVariables>;
// Generators of the fuzz test (test/e2e/fuzz.test.ts), pure fast-check arbitraries: API keys,
// content types, Accept headers, GraphQL-ish token soup, and the public queries with random
// arguments and variables.
import http from 'node:http';
import fc from 'fast-check';

export const headerSafe = (v: string) => {
  try {
    http.validateHeaderValue('x-test', v);
    return true;
  } catch {
    return false;
  }
};
export const randomKey = fc
  .oneof(
    fc.string({ maxLength: 80 }),
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.stringMatching(/^epk_(live|cert|test)_[A-Za-z0-9_-]{0,50}$/),
    fc.constantFrom('', ' ', 'null', 'undefined', 'epk_live_', 'Bearer x', '\t', "' OR 1=1 --"),
  )
  .filter(headerSafe);
export const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/graphql-response+json',
    'application/graphql',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded',
    'application/json; charset=latin1',
    'APPLICATION/JSON',
    '',
    'application/json, text/plain',
    'application/vnd.api+json',
    'application/json; charset="utf-8"',
  ),
  fc.string({ maxLength: 40 }).filter(headerSafe),
);
export const accept = fc.constantFrom(
  'application/json',
  'application/graphql-response+json',
  'application/graphql-response+json, application/json',
  '*/*',
  '',
  'application/xml',
  'text/event-stream',
);
export const keyChoice = fc.constantFrom<'own' | 'other' | 'none' | 'random'>('own', 'own', 'own', 'other', 'none', 'random');

const GQL_TOKENS = [
  '{',
  '}',
  '(',
  ')',
  ':',
  '$',
  '!',
  '...',
  '@',
  '"',
  '"""',
  '#',
  '\n',
  ',',
  '[',
  ']',
  '=',
  '|',
  '&',
  'query',
  'mutation',
  'subscription',
  'fragment',
  'on',
  'schema',
  'residentialPlans',
  'businessPlans',
  'utilities',
  'nextStartDate',
  'energyInfoByState',
  'utilityAccounts',
  '__schema',
  '__type',
  '__typename',
  'zipCode',
  'monthlyUsage',
  'annualUsage',
  'state',
  'address',
  'id',
  'title',
  'price',
  'rates',
  'supplier',
  'name',
  'true',
  'null',
  '1e999',
  '-1',
  '"75001"',
  'Int',
  'String',
  '@include(if: true)',
  '@skip(if: $x)',
  'a:',
  'b:',
];
export const gqlish = fc
  .array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...GQL_TOKENS) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) }), {
    maxLength: 80,
  })
  .map((a) => a.join(' '));

const zipValue = fc.oneof(
  fc.constantFrom(
    '75001',
    '75201',
    '60601',
    '19103',
    '43215',
    '00000',
    '99999',
    '7500',
    '750011',
    '',
    ' 75001',
    '75001\n',
    '7500١',
    '７５００１',
    '75001; DROP TABLE',
    '\u0000',
    '../../etc/passwd',
    '%00',
    '{{zip}}',
  ),
  fc.stringMatching(/^\d{0,7}$/),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
);
const usageValue = fc.oneof(
  fc.constantFrom(0, -1, 1, 1000, 100000, 100001, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 53, -0, 1e308),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.double({ noNaN: true }),
);
const anyValue = fc.oneof(zipValue, usageValue, fc.constant(null), fc.boolean(), fc.jsonValue({ maxDepth: 3 }));
const stateValue = fc.oneof(fc.constantFrom('TX', 'tx', 'PA', 'DC', 'ZZ', '', 'TEXAS', 'T', '\u0000X', 'ТХ'), fc.string({ maxLength: 4 }));
const addressValue = fc.oneof(
  fc.constantFrom('1500 Marilla St', '', ' ', '1500 MARILLA ST #<script>', 'a'.repeat(201), '1500 Marilla St\u0000'),
  fc.string({ maxLength: 250 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
);

/** A GraphQL string literal: usually well escaped, sometimes raw (broken on purpose). */
const literal = (v: unknown, raw: boolean) => (raw || typeof v !== 'string' ? String(v) : JSON.stringify(v));

const FIELDS = 'id title price term rateType supplier { name } rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd }';
export const operation = fc.oneof(
  fc.record({ zip: zipValue, usage: fc.oneof(usageValue, fc.constant(null)), raw: fc.boolean() }).map(({ zip, usage, raw }) => ({
    inline: `{ residentialPlans(zipCode: ${literal(zip, raw)}${usage === null ? '' : `, monthlyUsage: ${usage}`}) { ${FIELDS} } }`,
    withVars: {
      query: 'query P($zip: String!, $usage: Int) { residentialPlans(zipCode: $zip, monthlyUsage: $usage) { id title price } }',
      variables: { zip, usage },
    },
  })),
  fc.record({ zip: zipValue, usage: usageValue, raw: fc.boolean() }).map(({ zip, usage, raw }) => ({
    inline: `{ businessPlans(zipCode: ${literal(zip, raw)}, annualUsage: ${usage}) { id title price annualUsageKwh } }`,
    withVars: {
      query: 'query B($zip: String!, $usage: Int!) { businessPlans(zipCode: $zip, annualUsage: $usage) { id } }',
      variables: { zip, usage },
    },
  })),
  fc.record({ zip: zipValue, raw: fc.boolean() }).map(({ zip, raw }) => ({
    inline: `{ utilities(zipCode: ${literal(zip, raw)}) { id name state market } nextStartDate(zipCode: ${literal(zip, raw)}) { date utilityId } }`,
    withVars: {
      query: 'query U($zip: String!) { utilities(zipCode: $zip) { id } nextStartDate(zipCode: $zip) { date } }',
      variables: { zip },
    },
  })),
  fc.record({ state: stateValue, raw: fc.boolean() }).map(({ state, raw }) => ({
    inline: `{ energyInfoByState(state: ${literal(state, raw)}) { state name averageResidentialRateUsdPerKwh } }`,
    withVars: { query: 'query S($state: String!) { energyInfoByState(state: $state) { state } }', variables: { state } },
  })),
  fc.record({ address: addressValue, zip: zipValue, raw: fc.boolean() }).map(({ address, zip, raw }) => ({
    inline: `{ utilityAccounts(address: ${literal(address, raw)}, zipCode: ${literal(zip, raw)}) { accountId utilityId status } }`,
    withVars: {
      query: 'query A($a: String!, $zip: String!) { utilityAccounts(address: $a, zipCode: $zip) { accountId } }',
      variables: { a: address, zip },
    },
  })),
);
/** Variables of the wrong type, missing, extra, or null. */
export const mangledVariables = fc.oneof(
  fc.dictionary(fc.constantFrom('zip', 'usage', 'state', 'a', 'x', '__proto__', 'constructor'), anyValue, { maxKeys: 4 }),
  fc.constant(null),
  fc.constantFrom([], 'zip', 42, true),
);

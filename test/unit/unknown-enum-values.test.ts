// A feed value a public enum lacks: the resolver answers OTHER, the value is counted per enum
// (gateway_unknown_enum_values_total{type}) and logged at most once per enum and value per hour.
import { describe, expect, it, vi } from 'vitest';
import { buildSchema, graphql } from 'graphql';
import { feedEnum, unknownEnumStats } from '../../resolvers/enum-values.js';
import { createGatewayMetrics } from '../../server/observability/metrics.js';
import { observabilityCapability } from '../../server/wiring/observability.js';

const schema = buildSchema(`
  enum MeterType { AMS UNKNOWN OTHER }
  type Account { meterType: MeterType premiseType: MeterType! }
  type Query { accounts: [Account!]! }
`);
const run = (values: { meterType: unknown; premiseType: unknown }[]) =>
  graphql({
    schema,
    source: '{ accounts { meterType premiseType } }',
    rootValue: { accounts: values },
    fieldResolver: (parent: any, _a, _c, info) =>
      info.fieldName === 'accounts' ? parent.accounts : feedEnum(info.fieldName)(parent, {}, {}, info),
  });

describe('feedEnum', () => {
  it('passes known values and null, answers OTHER for anything else and counts it', async () => {
    const before = unknownEnumStats.get('MeterType') ?? 0;
    const r = await run([
      { meterType: 'AMS', premiseType: 'UNKNOWN' },
      { meterType: null, premiseType: 'PLC' },
      { meterType: 'x'.repeat(10_000), premiseType: '__proto__' },
      { meterType: 42, premiseType: 'ams' },
    ]);
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({
      accounts: [
        { meterType: 'AMS', premiseType: 'UNKNOWN' },
        { meterType: null, premiseType: 'OTHER' },
        { meterType: 'OTHER', premiseType: 'OTHER' },
        { meterType: 'OTHER', premiseType: 'OTHER' },
      ],
    });
    expect(unknownEnumStats.get('MeterType')).toBe(before + 5);
  });

  it('is exported as a metric by enum type', async () => {
    const metrics = createGatewayMetrics({ redisUp: null, defaultMetrics: false });
    await run([{ meterType: 'NEW', premiseType: 'AMS' }]);
    expect(await metrics.render()).toMatch(
      new RegExp(`gateway_unknown_enum_values_total\\{type="MeterType"\\} ${unknownEnumStats.get('MeterType')}`),
    );
    metrics.registry.clear();
  });

  it('logs a new value once per enum and value per hour, bounded', async () => {
    const warn = vi.fn();
    const logger = { warn, info: vi.fn(), error: vi.fn(), debug: vi.fn(), child: () => logger } as any;
    const cap = await observabilityCapability({
      config: { ports: { ops: null } } as any,
      logger,
      redis: null,
      bus: null,
      mesh: {} as any,
    });
    try {
      await run([
        { meterType: 'PLC', premiseType: 'PLC' },
        { meterType: 'PLC', premiseType: 'SMART' },
      ]);
      const lines = warn.mock.calls.map(([fields]) => `${fields.enum} ${fields.value}`);
      expect(lines).toEqual(['MeterType PLC', 'MeterType SMART']);
      await run([{ meterType: 'x'.repeat(500), premiseType: 'AMS' }]);
      expect(warn.mock.calls.at(-1)![0].value).toHaveLength(64);
    } finally {
      await cap.close?.();
    }
    // Closed: no more lines.
    await run([{ meterType: 'LATER', premiseType: 'AMS' }]);
    expect(warn.mock.calls.every(([f]) => f.value !== 'LATER')).toBe(true);
  });
});

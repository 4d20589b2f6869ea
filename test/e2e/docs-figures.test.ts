// The figures the guides quote are the served ones: recomputed from a started gateway (with the
// Gridwise block of docs/adding-a-feed.md appended), never hard-coded here, so whatever the data
// say, a page that disagrees with them fails. The arithmetic written out in the pages is checked
// exactly too (decimals, no floats).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { ROOT, writeConfigDir } from '../support/feed-config.js';

const page = (p: string) => fs.readFileSync(path.join(ROOT, p), 'utf8');
const GRIDWISE_VENDORS = /Gridwise|Pecan Hollow|Ironbridge/;

/** A decimal as an exact integer of 10^-12 units. */
const SCALE = 10n ** 12n;
function dec(text: string): bigint {
  const t = text.replace(/[−–]/g, '-').replace(/,/g, '');
  const m = /^(-?)(\d+)(?:\.(\d{1,12}))?$/.exec(t);
  if (!m) throw new Error(`not a decimal: ${text}`);
  const v = BigInt(m[2]!) * SCALE + BigInt((m[3] ?? '').padEnd(12, '0') || '0');
  return m[1] ? -v : v;
}

/** Evaluates `a × b + c − d` exactly (× before + and −). */
function evaluate(expr: string): bigint {
  const terms = expr.replace(/−/g, ' - ').replace(/\+/g, ' + ').trim().split(/\s+/);
  let total = 0n;
  let sign = 1n;
  let product: bigint | null = null;
  const flush = () => {
    if (product !== null) total += sign * product;
    product = null;
  };
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i]!;
    if (t === '+' || t === '-') {
      flush();
      sign = t === '+' ? 1n : -1n;
    } else if (t === '×') {
      const next = dec(terms[++i]!);
      product = (product! * next) / SCALE;
    } else product = dec(t);
  }
  flush();
  return total;
}

/** Every chain "expression = expression = …" written out in `text` (numbers with + − ×), checked exactly. */
function checkArithmetic(text: string, where: string): number {
  const expr = String.raw`\d[\d.,]*(?:\s*[×+−]\s*\d[\d.,]*)*`;
  let n = 0;
  for (const m of text.matchAll(new RegExp(`${expr}(?:\\s*=\\s*${expr})+`, 'g'))) {
    const [first, ...rest] = m[0].split('=').map((p) => p.trim().replace(/[.,]$/, ''));
    for (const part of rest) expect(evaluate(part), `${where}: ${m[0]}`).toBe(evaluate(first!));
    n++;
  }
  return n;
}

let t: TestGateway;
let dir: string;
const served = {} as {
  oncor: { fixedMonthlyUsd: number; perKwhUsd: number };
  peco: { delivery: { fixedMonthlyUsd: number; perKwhUsd: number }; ptc: number };
  plans: { title: string; supplier: { name: string }; term: number; price: number; renewablePercent: number; rates: any[] }[];
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-docs-figures-'));
  t = await startTestGateway({ MESH_DIR: writeConfigDir(dir, 'gridwise', ['examples/gridwise-feed.yaml']) });
  const q = async (query: string) => {
    const r = await t.post('certification', query);
    expect(r.json.errors, r.text).toBeUndefined();
    return r.json.data;
  };
  const utilities = async (zip: string) =>
    (await q(`{ utilities(zipCode: "${zip}") { id deliveryCharges { fixedMonthlyUsd perKwhUsd } priceToCompare { usdPerKwh } } }`))
      .utilities;
  served.oncor = (await utilities('75001')).find((u: any) => u.id === 'ONCOR').deliveryCharges;
  const peco = (await utilities('19103')).find((u: any) => u.id === 'PECO');
  served.peco = { delivery: peco.deliveryCharges, ptc: peco.priceToCompare.usdPerKwh };
  served.plans = (
    await q(
      '{ residentialPlans(zipCode: "75001") { title supplier { name } term price renewablePercent rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd } } }',
    )
  ).residentialPlans.filter((p: any) => GRIDWISE_VENDORS.test(p.supplier.name));
}, 120_000);
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const plan = (title: string) => {
  const p = served.plans.find((x) => x.title === title);
  expect(p, `served plan ${title}`).toBeDefined();
  return p!;
};
const tier = (title: string, kwh: number) => plan(title).rates.find((r) => r.usageKwh === kwh)!;

describe('docs/adding-a-feed.md step 5', () => {
  const text = page('docs/adding-a-feed.md');
  const step = text.slice(text.indexOf('## 5. Start the gateway and query'), text.indexOf('## How to map fields'));

  it("quotes Oncor's delivery charges as served", () => {
    const m = /\(Oncor: USD (\S+) a month plus USD (\S+)\s+per kWh/.exec(step);
    expect(m, 'the sentence quoting Oncor').not.toBeNull();
    expect({ fixedMonthlyUsd: Number(m![1]), perKwhUsd: Number(m![2]) }).toEqual(served.oncor);
  });

  it('the sample output lines are the served plans, in the served order', () => {
    const lines = [...step.matchAll(/^\{"title":"([^"]+)".*\}$/gm)];
    expect(lines.map((l) => l[1])).toEqual(served.plans.map((p) => p.title));
    // Lines written out in full are exactly what the query answers.
    const full = lines.map((l) => l[0]).filter((l) => !l.includes('…'));
    expect(full.length).toBeGreaterThan(0);
    for (const line of full) {
      const shown = JSON.parse(line);
      expect(shown, line).toEqual(plan(shown.title));
    }
    // Abridged lines: every tier they show is served.
    for (const l of lines.filter((x) => x[0].includes('…'))) {
      for (const r of l[0].matchAll(/\{"usageKwh":(\d+),"allInRateUsdPerKwh":([\d.]+),"avgMonthlyBillUsd":([\d.]+)\}/g))
        expect({ usageKwh: Number(r[1]), allInRateUsdPerKwh: Number(r[2]), avgMonthlyBillUsd: Number(r[3]) }).toEqual(
          tier(l[1]!, Number(r[1])),
        );
    }
  });

  it('the worked Pecan Hollow bill adds up, with the served price and delivery charges, to the served tier', () => {
    const row = (label: string) => {
      const m = new RegExp(`^\\| (?:\\*\\*)?${label}[^|]*\\| (?:\\*\\*)?([−\\d.]+)(?:\\*\\*)? \\|$`, 'm').exec(step);
      expect(m, `table row ${label}`).not.toBeNull();
      return m![0];
    };
    const energy = /Energy: 1000 × ([\d.]+) \| ([\d.]+)/.exec(row('Energy'))!;
    expect(Number(energy[1])).toBe(plan('Pecan Hollow Lock 24').price);
    expect(dec(energy[2]!)).toBe(evaluate(`1000 × ${energy[1]}`));
    const delivery = /Delivery: ([\d.]+) \+ 1000 × ([\d.]+) \| ([\d.]+)/.exec(row('Delivery'))!;
    expect({ fixedMonthlyUsd: Number(delivery[1]), perKwhUsd: Number(delivery[2]) }).toEqual(served.oncor);
    expect(dec(delivery[3]!)).toBe(evaluate(`${delivery[1]} + 1000 × ${delivery[2]}`));
    const credit = /\| −([\d.]+) \|/.exec(row('Bill credit'))!;
    const total = /([\d.]+)\*\* \|$/.exec(row('Total'))!;
    expect(dec(total[1]!)).toBe(dec(energy[2]!) + dec(delivery[3]!) - dec(credit[1]!));
    const gives = /That gives (\d+\.\d+) USD per kWh, and a bill of (\d+(?:\.\d+)?)/.exec(step)!;
    expect(dec(gives[1]!) * 1000n).toBe(dec(total[1]!));
    expect({ allInRateUsdPerKwh: Number(gives[1]), avgMonthlyBillUsd: Number(gives[2]) }).toMatchObject({
      allInRateUsdPerKwh: tier('Pecan Hollow Lock 24', 1000).allInRateUsdPerKwh,
      avgMonthlyBillUsd: tier('Pecan Hollow Lock 24', 1000).avgMonthlyBillUsd,
    });
  });

  it('the worked Ironbridge bill adds up to the served tier', () => {
    const m =
      /For Ironbridge Green 24 at 2000 kWh, the two blocks apply:\s+([\d.+\s]+?) = ([\d.]+) USD\. That gives ([\d.]+) USD per kWh and a bill of\s+([\d.]+)\./.exec(
        step,
      );
    expect(m, 'the Ironbridge sentence').not.toBeNull();
    const parts = m![1]!.split('+').map((s) => s.trim());
    expect(evaluate(parts.join(' + '))).toBe(dec(m![2]!));
    // Its fixed and per-kWh delivery parts are Oncor's, as served.
    expect(parts).toContain(String(served.oncor.fixedMonthlyUsd));
    expect(parts.map(dec)).toContain(evaluate(`2000 × ${served.oncor.perKwhUsd}`));
    expect({ allInRateUsdPerKwh: Number(m![3]), avgMonthlyBillUsd: Number(m![4]) }).toEqual({
      allInRateUsdPerKwh: tier('Ironbridge Green 24', 2000).allInRateUsdPerKwh,
      avgMonthlyBillUsd: tier('Ironbridge Green 24', 2000).avgMonthlyBillUsd,
    });
  });
});

describe('docs/operations.md "Data"', () => {
  it("quotes Oncor's delivery charges as served", () => {
    const m = /Oncor USD ([\d.]+)\/month \+ ([\d.]+) ¢\/kWh/.exec(page('docs/operations.md'));
    expect(m, 'the sentence quoting Oncor').not.toBeNull();
    expect(Number(m![1])).toBe(served.oncor.fixedMonthlyUsd);
    expect(dec(m![2]!)).toBe(dec(String(served.oncor.perKwhUsd)) * 100n);
  });
});

describe('docs/partners.md Price to Compare example', () => {
  const text = page('docs/partners.md');
  const example = text.slice(text.indexOf('Worked example (PECO'), text.indexOf('### Recomputing a price'));

  it("quotes PECO's Price to Compare and delivery charges as served", () => {
    const m = /PECO: PtC ([\d.]+) USD\/kWh; delivery ([\d.]+) USD a month \+ ([\d.]+) USD\/kWh/.exec(example);
    expect(m, 'the sentence quoting PECO').not.toBeNull();
    expect({ ptc: Number(m![1]), delivery: { fixedMonthlyUsd: Number(m![2]), perKwhUsd: Number(m![3]) } }).toEqual(served.peco);
  });

  it('its arithmetic is exact', () => {
    expect(checkArithmetic(example, 'docs/partners.md')).toBeGreaterThanOrEqual(5);
  });
});

describe('the exact-arithmetic checker', () => {
  it('catches a wrong sum', () => {
    expect(evaluate('11.45 + 725 × 0.07948')).toBe(dec('69.073'));
    expect(evaluate('140.4855 − 139.2005')).toBe(dec('1.285'));
    expect(() => checkArithmetic('x: 1 + 1 = 3', 'self')).toThrow();
  });
});

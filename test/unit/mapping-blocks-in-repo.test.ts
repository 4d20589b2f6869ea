// The feed-mapping blocks of the repository against the block schema (transforms/mapping/block-schema.ts):
// those in .meshrc.yaml and examples/ pass it, and each in the docs' YAML examples is a whole block
// that passes or an excerpt of one of them.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { isFeedMappingKey } from '../../transforms/mapping/index.js';
import { blockShapeProblems } from '../../transforms/mapping/block-schema.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(`${ROOT}${file}`, 'utf8');

/** Every feed-mapping block in a parsed YAML document, wherever it sits. */
function mappingBlocks(doc: unknown): Record<string, unknown>[] {
  if (Array.isArray(doc)) return doc.flatMap(mappingBlocks);
  if (typeof doc !== 'object' || doc === null) return [];
  // A transform's value is one block or a list of blocks (one per operation of the source).
  return Object.entries(doc).flatMap(([k, v]) =>
    isFeedMappingKey(k) ? (Array.isArray(v) ? v : [v]).map((b) => b as Record<string, unknown>) : mappingBlocks(v),
  );
}

/** The YAML code blocks of a Markdown page that hold a feed-mapping block, dedented and parsed. */
function docBlocks(file: string): Record<string, unknown>[] {
  return [...read(file).matchAll(/```yaml\n([\s\S]*?)```/g)].flatMap(([, text]) => {
    if (!text!.includes('feed-mapping')) return [];
    const indent = Math.min(
      ...text!
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => l.length - l.trimStart().length),
    );
    return mappingBlocks(
      yaml.load(
        text!
          .split('\n')
          .map((l) => l.slice(indent))
          .join('\n'),
      ),
    );
  });
}

const ELIDED = '…';

/** Where a docs excerpt shows a value, the complete block has the same one; where it elides one (…), the complete block has it. */
function expectExcerptOf(excerpt: unknown, complete: unknown, at: string): void {
  if (excerpt === ELIDED) {
    expect(complete, `${at} is elided in the docs but absent from the complete block`).toBeDefined();
  } else if (typeof excerpt === 'object' && excerpt !== null && !Array.isArray(excerpt)) {
    expect(typeof complete, at).toBe('object');
    for (const [k, v] of Object.entries(excerpt)) expectExcerptOf(v, (complete as Record<string, unknown>)[k], `${at}.${k}`);
  } else {
    expect(complete, at).toEqual(excerpt);
  }
}

const hasElision = (v: unknown): boolean => v === ELIDED || (typeof v === 'object' && v !== null && Object.values(v).some(hasElision));

describe("the repository's blocks pass the schema", () => {
  const complete = [
    ...mappingBlocks(yaml.load(read('.meshrc.yaml'))),
    ...readdirSync(`${ROOT}examples`)
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => mappingBlocks(yaml.load(read(`examples/${f}`)))),
  ];

  it('every mapping in .meshrc.yaml and examples/', () => {
    expect(complete.map((b) => b.operation)).toEqual(
      expect.arrayContaining([
        'territoriesByZip',
        'listOffers',
        'brightgridPlans',
        'eiaRetailSales',
        'eiaGeneration',
        'premisesSearch',
        'gridwiseFeed',
        'sunpathOffers',
      ]),
    );
    for (const b of complete) expect(blockShapeProblems(b), String(b.operation)).toEqual([]);
  });

  const docs = readdirSync(`${ROOT}docs`).filter((f) => f.endsWith('.md'));
  const shown = docs.flatMap((f) => docBlocks(`docs/${f}`).map((b) => [f, b] as const));

  it('finds the mapping blocks of the docs', () => {
    expect(docs).toEqual(expect.arrayContaining(['adding-a-feed.md', 'feeds.md']));
    expect(shown.filter(([f]) => f === 'adding-a-feed.md').map(([, b]) => b.operation)).toEqual([
      'gridwiseFeed',
      'sunpathOffers',
      'listOffers',
    ]);
  });

  it('every mapping block of the docs: a whole one passes, an excerpt matches the block it is taken from', () => {
    for (const [file, b] of shown) {
      const source = complete.find((c) => c.operation === b.operation);
      if (!hasElision(b)) expect(blockShapeProblems(b), `${file}: ${String(b.operation)}`).toEqual([]);
      else expect(source, `${file}: an excerpt of ${String(b.operation)}, whose whole block is in .meshrc.yaml or examples/`).toBeDefined();
      if (source) expectExcerptOf(b, source, `${file}: ${String(b.operation)}`);
    }
  });
});

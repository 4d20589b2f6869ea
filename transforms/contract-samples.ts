// The `sample.json` beside each feed's contract, checked against the contract (for feeds:check):
// with a JSON Schema contract the operation's `responseSchema`, with an OpenAPI contract the mapped
// operation's 200 (or first 2xx) JSON response schema, its `$ref`s resolved within the document.
// feeds:check then serves each sample as the feed's answer to check its values' plausibility.
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { Ajv } from 'ajv';
import { isObjectLike } from './mapping/paths.js';
import type { FeedBinding } from './mapping/types.js';

interface SampleCheck {
  /** The sample does not match its contract (or cannot be read): the check fails. */
  problems: string[];
  /** The samples that match their contract. */
  files: string[];
}

interface Contract {
  /** The JSON Schema the sample must match (OpenAPI: the response schema with the document's components). */
  schema: object;
  file: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a Mesh handler block is free-form YAML
type RawSource = { name?: unknown; handler?: Record<string, any> };

const shown = (file: string) => path.relative(process.cwd(), file) || file;

function readDoc(file: string): unknown {
  const text = fs.readFileSync(file, 'utf8');
  return /\.ya?ml$/i.test(file) ? yaml.load(text) : JSON.parse(text);
}

/** The 2xx JSON response schema of the operation `operationId` of an OpenAPI document. */
function openApiResponse(doc: unknown, operationId: string): object | null {
  if (!isObjectLike(doc) || !isObjectLike(doc.paths)) return null;
  for (const item of Object.values(doc.paths)) {
    if (!isObjectLike(item)) continue;
    for (const op of Object.values(item)) {
      if (!isObjectLike(op) || op.operationId !== operationId || !isObjectLike(op.responses)) continue;
      const codes = Object.keys(op.responses)
        .filter((c) => /^2\d\d$/.test(c))
        .sort();
      const response = op.responses[codes[0] ?? ''];
      const schema =
        isObjectLike(response) && isObjectLike(response.content)
          ? (response.content as Record<string, { schema?: unknown } | undefined>)['application/json']?.schema
          : undefined;
      // The components ride along so `#/components/schemas/...` resolves from the root.
      return isObjectLike(schema) ? { ...schema, components: doc.components } : null;
    }
  }
  return null;
}

/** The contracts of a source: its JSON Schema response schemas, or its OpenAPI document's. */
function contractsOf(dir: string, src: RawSource, operation: string): Contract[] {
  const json = src.handler?.jsonSchema;
  if (isObjectLike(json) && Array.isArray(json.operations)) {
    return (json.operations as { responseSchema?: unknown }[])
      .filter((op) => typeof op?.responseSchema === 'string' && !/^https?:/.test(op.responseSchema))
      .map((op) => {
        const file = path.resolve(dir, (op.responseSchema as string).split('#')[0]!);
        return { file, schema: readDoc(file) as object };
      });
  }
  const openapi = src.handler?.openapi;
  if (isObjectLike(openapi) && typeof openapi.source === 'string' && !/^https?:/.test(openapi.source)) {
    const file = path.resolve(dir, openapi.source);
    const schema = openApiResponse(readDoc(file), operation);
    return schema ? [{ file, schema }] : [];
  }
  return [];
}

/** Per feed (source name): the sample beside each contract, checked. Feeds without a sample are left out. */
export async function contractSamples(dir: string, bindings: readonly FeedBinding[]): Promise<Map<string, SampleCheck>> {
  const out = new Map<string, SampleCheck>();
  let raw: { sources?: unknown };
  try {
    raw = yaml.load(fs.readFileSync(path.join(dir, '.meshrc.yaml'), 'utf8')) as { sources?: unknown };
  } catch {
    return out; // the gateway's start-up reported it
  }
  if (!Array.isArray(raw?.sources)) return out;
  // OpenAPI 3.0 keywords (nullable, example, discriminator...) are not JSON Schema: ignored, not errors.
  const ajv = new Ajv({ allErrors: true, strict: false });
  for (const src of raw.sources as RawSource[]) {
    const binding = bindings.find((b) => b.source === src?.name);
    if (!binding) continue;
    const check: SampleCheck = { problems: [], files: [] };
    let contracts: Contract[] = [];
    try {
      contracts = contractsOf(dir, src, binding.operation);
    } catch (err) {
      check.problems.push(`cannot read its contract: ${(err as Error).message}`);
    }
    for (const c of contracts) {
      const sampleFile = path.join(path.dirname(c.file), 'sample.json');
      if (!fs.existsSync(sampleFile)) continue;
      try {
        const sample: unknown = JSON.parse(fs.readFileSync(sampleFile, 'utf8'));
        const validate = ajv.compile(c.schema);
        if (!validate(sample)) {
          const first = validate
            .errors!.slice(0, 2)
            .map((e) => `${e.instancePath || '(root)'} ${e.message}`)
            .join('; ');
          check.problems.push(`${shown(sampleFile)} does not match ${path.basename(c.file)}: ${first}`);
          continue;
        }
        check.files.push(sampleFile);
      } catch (err) {
        check.problems.push(`cannot check ${shown(sampleFile)}: ${(err as Error).message}`);
      }
    }
    if (check.problems.length || check.files.length) out.set(binding.source, check);
  }
  return out;
}

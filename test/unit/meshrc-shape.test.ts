import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { meshrcShapeProblem } from '../../mesh/meshrc-shape.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('.meshrc.yaml shape, before Mesh reads it', () => {
  it("accepts the project's own file and a minimal one", () => {
    expect(meshrcShapeProblem(yaml.load(fs.readFileSync(path.join(ROOT, '.meshrc.yaml'), 'utf8')))).toBeNull();
    expect(meshrcShapeProblem({ sources: [{ name: 'A', handler: { openapi: { source: './a.yaml' } }, transforms: [] }] })).toBeNull();
  });

  it.each([
    [null, 'the file is empty or not a mapping'],
    ['text', 'the file is empty or not a mapping'],
    [[{ name: 'A' }], 'the file is empty or not a mapping'],
    [{}, '"sources" must be a list of at least one source'],
    [{ sources: 5 }, '"sources" must be a list of at least one source'],
    [{ sources: [] }, '"sources" must be a list of at least one source'],
    [{ sources: ['A'] }, 'sources[0] must be a mapping with "name" and "handler"'],
    [{ sources: [{ handler: { openapi: {} } }] }, 'sources[0] needs a "name" (a string)'],
    [{ sources: [{ name: '  ', handler: { openapi: {} } }] }, 'sources[0] needs a "name" (a string)'],
    [{ sources: [{ name: 'A' }] }, 'source "A" needs a "handler" mapping'],
    [{ sources: [{ name: 'A', handler: 'openapi' }] }, 'source "A" needs a "handler" mapping'],
    [{ sources: [{ name: 'A', handler: { openapi: {} }, transforms: { x: 1 } }] }, 'source "A": "transforms" must be a list'],
  ])('%j: %s', (raw, message) => {
    expect(meshrcShapeProblem(raw)).toContain(message);
  });
});

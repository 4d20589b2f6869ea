// The walkthrough's reading of the guides: which blocks run, which are servers, which are skipped and why.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { MarkdownBlockError, runnableBlocks } from '../../scripts/docs/markdown-blocks.js';
import { WALKTHROUGH_PAGES } from '../../scripts/docs/walkthrough-pages.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('runnable Markdown blocks', () => {
  it('sh and graphql blocks run unless marked; other blocks are not commands', () => {
    const md = [
      'Text',
      '```sh',
      'echo one',
      '```',
      '<!-- walkthrough: skip: needs a real feed host -->',
      '',
      '```sh',
      'curl https://feeds.example',
      '```',
      '```yaml',
      'a: 1',
      '```',
      '<!-- walkthrough: background -->',
      '```sh',
      'npm start',
      '```',
      '- a list item:',
      '',
      '  ```bash',
      '  npx tsc',
      '  ```',
      '<!-- walkthrough: errors expected -->',
      '```graphql',
      '{ x }',
      '```',
    ].join('\n');
    expect(runnableBlocks('x.md', md).map((b) => [b.line, b.lang, b.action, b.text, b.errorsExpected, b.reason])).toEqual([
      [2, 'sh', 'run', 'echo one', false, undefined],
      [7, 'sh', 'skip', 'curl https://feeds.example', false, 'needs a real feed host'],
      [14, 'sh', 'background', 'npm start', false, undefined],
      [19, 'sh', 'run', 'npx tsc', false, undefined],
      [23, 'graphql', 'run', '{ x }', true, undefined],
    ]);
  });

  it('a skip needs a reason; an unknown marker or one on a block that never runs is an error', () => {
    expect(() => runnableBlocks('x.md', '<!-- walkthrough: skip -->\n```sh\nls\n```')).toThrow(MarkdownBlockError);
    expect(() => runnableBlocks('x.md', '<!-- walkthrough: later -->\n```sh\nls\n```')).toThrow(
      /x.md:2: unknown walkthrough marker "later"/,
    );
    expect(() => runnableBlocks('x.md', '<!-- walkthrough: background -->\n```json\n{}\n```')).toThrow(/never run/);
    expect(() => runnableBlocks('x.md', '```sh\nls\n')).toThrow(/never closed/);
  });

  it('the pages the walkthrough follows parse, and every block it does not run says why', () => {
    for (const page of WALKTHROUGH_PAGES) {
      const blocks = runnableBlocks(page, fs.readFileSync(path.join(ROOT, page), 'utf8'));
      expect(blocks.length, page).toBeGreaterThan(0);
      for (const b of blocks.filter((x) => x.action === 'skip')) expect(b.reason!.length, `${page}:${b.line}`).toBeGreaterThan(10);
    }
  });
});

// The runnable blocks of a Markdown page, for the walkthrough that follows the guides
// (scripts/docs/walkthrough.ts). Every ```sh (or bash) and ```graphql block is a command to run,
// unless the line before its fence (blank lines aside) is a marker saying otherwise:
//
//   <!-- walkthrough: skip: why -->          not run; the reason is required and printed
//   <!-- walkthrough: background -->         a server (`npm start`, `npm run upstream`): started,
//                                            waited for, stopped with one Ctrl-C later
//   <!-- walkthrough: errors expected -->    run; its GraphQL answers may carry `errors`
//
// Other blocks (yaml, json, output shown as plain text) are not commands and are not run.

export type BlockAction = 'run' | 'skip' | 'background';

export interface RunnableBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: 'sh' | 'graphql';
  text: string;
  action: BlockAction;
  errorsExpected: boolean;
  /** Why a block is skipped. */
  reason?: string;
}

const MARKER = /^<!--\s*walkthrough:(.*)-->$/;
const FENCE = /^(\s*)```(\S*)\s*$/;

export class MarkdownBlockError extends Error {}

export function runnableBlocks(file: string, markdown: string): RunnableBlock[] {
  const lines = markdown.split('\n');
  const blocks: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    if (end >= lines.length) throw new MarkdownBlockError(`${file}:${i + 1}: code block never closed`);
    const lang = open[2] === 'bash' ? 'sh' : open[2];
    const marker = markerBefore(lines, i);
    if (lang === 'sh' || lang === 'graphql') {
      const text = lines
        .slice(i + 1, end)
        .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
        .join('\n');
      blocks.push({ file, line: i + 1, lang, text, ...parseMarker(file, i + 1, marker) });
    } else if (marker !== null) {
      throw new MarkdownBlockError(`${file}:${i + 1}: a walkthrough marker on a ${open[2] || 'plain'} block, which is never run`);
    }
    i = end;
  }
  return blocks;
}

function markerBefore(lines: string[], fence: number): string | null {
  for (let j = fence - 1; j >= 0; j--) {
    const l = lines[j]!.trim();
    if (!l) continue;
    const m = MARKER.exec(l);
    return m ? m[1]!.trim() : null;
  }
  return null;
}

function parseMarker(file: string, line: number, marker: string | null): Pick<RunnableBlock, 'action' | 'errorsExpected' | 'reason'> {
  if (marker === null) return { action: 'run', errorsExpected: false };
  if (marker === 'background') return { action: 'background', errorsExpected: false };
  if (marker === 'errors expected') return { action: 'run', errorsExpected: true };
  const skip = /^skip:\s*(\S.*)$/.exec(marker);
  if (skip) return { action: 'skip', errorsExpected: false, reason: skip[1]! };
  throw new MarkdownBlockError(
    `${file}:${line}: unknown walkthrough marker "${marker}" (use "skip: <why>", "background" or "errors expected")`,
  );
}

/** Every fenced block of a page, whatever its language (the walkthrough compares shown output with real output). */
export function fencedBlocks(markdown: string): { line: number; lang: string; text: string }[] {
  const lines = markdown.split('\n');
  const out: { line: number; lang: string; text: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    out.push({ line: i + 1, lang: open[2]!, text: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return out;
}

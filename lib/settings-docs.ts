// The settings table of docs/operations.md, rendered from lib/settings-table.ts between two markers.
import { settingsMarkdown } from './settings.js';
import { SETTINGS, SETTING_FAMILIES } from './settings-table.js';

export const SETTINGS_DOC = 'docs/operations.md';
const START = '<!-- settings:start (written by npm run docs:settings from lib/settings-table.ts) -->';
const END = '<!-- settings:end -->';

function settingsTable(): string {
  const families = SETTING_FAMILIES.map((f) => `| \`${f.name}\` | http/https URL | UPSTREAM_URL | gateway | ${f.description} |`);
  return `${settingsMarkdown(SETTINGS)}\n${families.join('\n')}`;
}

/** The page with its settings section replaced; throws when the page lacks the markers. */
export function settingsDocSection(page: string): string {
  const a = page.indexOf(START);
  const b = page.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${SETTINGS_DOC} has no settings markers (${START} … ${END})`);
  return `${page.slice(0, a)}${START}\n\n${settingsTable()}\n\n${page.slice(b)}`;
}

// Every environment setting of the gateway, gathered from the concerns that declare them (each
// beside its code, as one zod object): what `npm run config:check`, the settings table of
// docs/operations.md (`npm run docs:settings`) and the test that every setting read is declared go by.
import { settingsMarkdown, settingsOf, type AnySetting } from '../lib/settings.js';
import { SETTING_FAMILIES } from '../server/config.js';
import { gatewaySettings, logSettings } from '../server/gateway-settings.js';
import { adminSettings } from '../support/admin-settings.js';
import { listenerSettings } from '../server/http/listener-settings.js';
import { queryLimitSettings } from '../server/graphql/limits.js';
import { cacheEnvSettings } from '../cache/cache-config.js';
import { replaySettings } from '../stores/replay-settings.js';
import { upstreamSettings } from '../sources/upstream/upstream-config.js';
import { tracingSettings } from '../server/observability/tracing-config.js';

export { SETTING_FAMILIES };

/** Every concern's settings, in the order of the docs' table. */
export const ALL_SETTINGS: readonly AnySetting[] = [
  gatewaySettings,
  listenerSettings,
  queryLimitSettings,
  cacheEnvSettings,
  replaySettings,
  adminSettings,
  upstreamSettings,
  logSettings,
  tracingSettings,
].flatMap(settingsOf);

const NAMES = new Set(ALL_SETTINGS.map((s) => s.name));

/** A variable the gateway reads: declared by a concern, or one of a family (`<SOURCE>_URL`). */
export const isSetting = (name: string) => NAMES.has(name) || SETTING_FAMILIES.some((f) => f.pattern.test(name));

export const SETTINGS_DOC = 'docs/operations.md';
const START = '<!-- settings:start (written by npm run docs:settings from the settings each concern declares) -->';
const END = '<!-- settings:end -->';

function settingsTable(): string {
  const families = SETTING_FAMILIES.map((f) => `| \`${f.name}\` | http/https URL | UPSTREAM_URL | gateway | ${f.description} |`);
  return `${settingsMarkdown(ALL_SETTINGS)}\n${families.join('\n')}`;
}

/** The page with its settings section replaced; throws when the page lacks the markers. */
export function settingsDocSection(page: string): string {
  const a = page.indexOf(START.slice(0, START.indexOf('(')));
  const b = page.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${SETTINGS_DOC} has no settings markers (${START} … ${END})`);
  return `${page.slice(0, a)}${START}\n\n${settingsTable()}\n\n${page.slice(b)}`;
}

// `npm run docs:settings`: writes the settings table of docs/operations.md from the settings each concern declares
// (between its settings markers); `--check` exits 1 when the page differs instead of writing it.
import fs from 'node:fs';
import path from 'node:path';
import { settingsDocSection, SETTINGS_DOC } from '../cli/settings-registry.js';

const file = path.resolve(import.meta.dirname, '..', SETTINGS_DOC);
const page = fs.readFileSync(file, 'utf8');
const next = settingsDocSection(page);
if (process.argv.includes('--check')) {
  if (next !== page) {
    console.error(`${SETTINGS_DOC}: the settings table differs from the settings each concern declares; run npm run docs:settings`);
    process.exit(1);
  }
  console.log(`${SETTINGS_DOC}: settings table up to date`);
} else {
  fs.writeFileSync(file, next);
  console.log(`${SETTINGS_DOC}: settings table written`);
}

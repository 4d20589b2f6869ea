// `npm run partners -- <command>`: partner records for certification onboarding, the
// same file the console edits (PARTNERS_FILE, default partners.json beside KEYS_FILE). Every change
// is written to the audit log as cli:<os user>; running gateways pick it up within a second.
//
//   list [--json]                                         partners, their test IPs and the quota that applies
//   save --partner CODE --name NAME --contact CONTACT     add a partner or update name and contact
//   allow --partner CODE --ip IP|CIDR                     enable a test IP or range
//   disallow --partner CODE --ip IP|CIDR                  remove it
//   check --partner CODE --ip IP                          what the checkout endpoint would answer
//   quota --partner CODE --env ENV --rate N --burst N     the partner's request quota (or --unlimited, --default)
//
// Exit status: 0 done (check: enabled), 1 refused or failed (check: not enabled), 2 usage error.
import { parseArgs } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../start/config.js';
import { PartnerError, PartnerStore, addTestIp, readPartnersFile, removeTestIp, savePartner } from '../stores/partners.js';
import { StoreFileError } from '../stores/locked-file.js';
import { effectiveQuotas, quotaCommand, QUOTA_OPTIONS, QUOTA_USAGE, quotaListing } from './partner-quota.js';
import { QuotaError, type QuotaSetting } from '../stores/partner-quota.js';
import { openAuditLog } from './audit.js';
import { UsageError, isUsageError, type Io, isEntryModule, terminalIo } from './usage.js';

const USAGE = `Usage: npm run partners -- <command> [options]

Commands:
  list [--json]                                        partners, their certification test IPs and quotas (own or default)
  save --partner CODE --name NAME --contact CONTACT    add a partner, or update its name and contact
  allow --partner CODE --ip IP|CIDR                    enable a test IP or range (IPv4 up to /24, IPv6 up to /48)
  disallow --partner CODE --ip IP|CIDR                 remove a test IP or range
  check --partner CODE --ip IP                         is this IP enabled for the partner (exit 0 yes, 1 no)
${QUOTA_USAGE}

Options:
  --file <path>   partners file (default: PARTNERS_FILE, else partners.json beside KEYS_FILE)
  -h, --help      show this help

Test IPs only enable the certification checkout flow; calling the API needs no allow-listing.`;

const OPTIONS = {
  partner: { type: 'string' },
  name: { type: 'string' },
  contact: { type: 'string' },
  ip: { type: 'string' },
  file: { type: 'string' },
  json: { type: 'boolean' },
  ...QUOTA_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'string' ? string : boolean };

function need(values: Values, name: 'partner' | 'name' | 'contact' | 'ip', command: string): string {
  const v = values[name];
  if (typeof v !== 'string' || !v.trim()) throw new UsageError(`${command} needs --${name}`);
  return v;
}

/** The partners, each with the quota that applies (its record's, else `quotaDefault`: PARTNER_QUOTA_DEFAULT). */
async function listPartners(file: string, json: boolean, quotaDefault: QuotaSetting, io: Io): Promise<void> {
  const partners = await readPartnersFile(file);
  if (json)
    io.out(
      JSON.stringify(
        partners.map((p) => ({ ...p, effectiveQuotas: effectiveQuotas(p, quotaDefault) })),
        null,
        2,
      ),
    );
  else if (!partners.length) io.out('no partners');
  else
    for (const p of partners) {
      const ips = p.testIps.map((t) => `${t.cidr} (${t.addedBy}, ${t.addedAt})`).join(', ') || 'none';
      io.out(`${p.code}  ${p.name} <${p.contact}>  test IPs: ${ips}  ${quotaListing(p, quotaDefault)}`);
    }
}

export async function runPartnersCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help) {
      io.out(USAGE);
      return 0;
    }
    const [command, ...rest] = positionals;
    if (!command) throw new UsageError('missing command (list, save, allow, disallow, check or quota)');
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
    const config = loadConfig(env);
    const file = values.file ? path.resolve(values.file) : config.partnersFile;
    const actor = { actor: `cli:${os.userInfo().username}` };
    const audit = (action: string, target: string, details: Record<string, unknown>) =>
      openAuditLog(config).then(async ({ log, close }) => {
        try {
          await log.write({ actor: actor.actor, action, target, from: 'cli', details });
        } finally {
          await close();
        }
      });
    switch (command) {
      case 'list':
        await listPartners(file, values.json === true, config.partnerQuotaDefault, io);
        return 0;
      case 'save': {
        const p = await savePartner(
          file,
          { code: need(values, 'partner', 'save'), name: need(values, 'name', 'save'), contact: need(values, 'contact', 'save') },
          actor,
        );
        await audit('partner.save', p.code, { name: p.name, contact: p.contact });
        io.out(`saved ${p.code}`);
        return 0;
      }
      case 'allow':
      case 'disallow': {
        const code = need(values, 'partner', command);
        const ip = need(values, 'ip', command);
        const entry = command === 'allow' ? await addTestIp(file, code, ip, actor) : await removeTestIp(file, code, ip, actor);
        await audit(command === 'allow' ? 'partner.ip.enable' : 'partner.ip.disable', code.toUpperCase(), { cidr: entry.cidr });
        io.out(`${command === 'allow' ? 'enabled' : 'removed'} ${entry.cidr} for ${code.toUpperCase()}`);
        io.err('Running gateways answer the change within a second.');
        return 0;
      }
      case 'check': {
        const store = await PartnerStore.open(file);
        try {
          const answer = store.check(need(values, 'partner', 'check'), need(values, 'ip', 'check'));
          io.out(JSON.stringify(answer));
          return answer.enabled ? 0 : 1;
        } finally {
          store.close();
        }
      }
      case 'quota': {
        const p = await quotaCommand(file, values, actor, config.partnerQuotaDefault);
        await audit('partner.quota', p.code, { environment: p.environment, quota: p.quota });
        io.out(`quota of ${p.code} in ${p.environment}: ${p.described}`);
        io.err('Running gateways apply it within a second.');
        return 0;
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (isUsageError(err)) {
      io.err(`partners: ${(err as Error).message}`);
      io.err('Run "npm run partners -- --help" for usage.');
      return 2;
    }
    if (err instanceof PartnerError || err instanceof StoreFileError || err instanceof ConfigError || err instanceof QuotaError) {
      io.err(`partners: ${err.message}`);
      return 1;
    }
    io.err(`partners: failed: ${(err as Error)?.message ?? String(err)}`);
    return 1;
  }
}

if (isEntryModule(import.meta.url)) process.exitCode = await runPartnersCli(process.argv.slice(2), process.env, terminalIo);

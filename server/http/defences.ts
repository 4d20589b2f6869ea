// What a listener's connection defences refuse or cut off before a request reaches the plugin
// chain (so it is in no request line and in no gateway_requests_total): each event is handed to
// the plugins' onDefence hook (metrics count it) and written as a warning, at most one a second per
// reason (a client causes these at will), with the count it stands for and the peer address.
import { throttledWarning, type Warn } from '../../lib/throttled-warning.js';
import type { DefenceReason, EnvironmentName, HttpPlugin } from './plugin.js';

/** Reports one event of a defence: the socket's peer address, and fields that say which bound it met. */
export type DefenceReport = (reason: DefenceReason, remoteAddress: string | undefined, detail?: Record<string, number>) => void;

const MESSAGES: Record<DefenceReason, string> = {
  per_ip_cap: 'connection refused: over the per-address connection cap',
  silent_shed: 'connection closed: listener at its connection cap, shedding sockets that sent no request',
  h2_rapid_reset: 'HTTP/2 connection closed with ENHANCE_YOUR_CALM: too many stream resets (rapid reset)',
  headers_too_large: 'request refused: headers too large (431)',
  malformed: 'request refused: malformed HTTP (400)',
  request_timeout: 'request refused: not received within the request timeout (408)',
};

export const DEFENCE_REASONS = Object.keys(MESSAGES) as DefenceReason[];

export function defenceReporter(opts: {
  environment: EnvironmentName;
  logger?: { warn: Warn } | null;
  plugins: readonly HttpPlugin[];
  everyMs?: number;
}): DefenceReport {
  const hooks = opts.plugins.filter((p) => p.onDefence).map((p) => p.onDefence!.bind(p));
  const logger = opts.logger;
  // One throttle per reason: a flood of one kind does not hide the first line of another.
  const warnings = new Map<DefenceReason, Warn>(
    DEFENCE_REASONS.map((r) => [r, throttledWarning((obj, msg) => logger?.warn(obj, msg), { everyMs: opts.everyMs })]),
  );
  return (reason, remoteAddress, detail) => {
    for (const h of hooks) h(reason);
    if (logger) warnings.get(reason)!({ environment: opts.environment, reason, remoteAddress, ...detail }, MESSAGES[reason]);
  };
}

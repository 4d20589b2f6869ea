// PORT_BASE moves every default port together; a port's own variable wins; a taken port names its variable.
import { describe, expect, it } from 'vitest';
import net from 'node:net';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { portTaken } from '../../scripts/docs/walkthrough.js';
import { ConfigError, loadConfig } from '../../start/config.js';
import { DEFAULT_PORTS, MAX_PORT_BASE, PortInUseError } from '../../lib/ports.js';
import { listen } from '../../server/http/listen.js';
import { bundled } from '../support/bundles.js';

const ports = (env: NodeJS.ProcessEnv) => {
  const c = loadConfig({ ADMIN_TOKEN: 'x'.repeat(24), ...env }, '/srv/app');
  return {
    production: c.ports.production,
    certification: c.ports.certification,
    playground: c.ports.playground,
    upstream: c.upstream.port,
    admin: c.admin.port,
    ops: c.ports.ops,
    playgroundOps: c.playgroundProcess.opsPort,
  };
};

describe('ports', () => {
  it('defaults: 4000, 4001, 4002, 4010, 4020, 9464, 9465 (PORT_BASE=4000 changes nothing)', () => {
    const expected = {
      production: 4000,
      certification: 4001,
      playground: 4002,
      upstream: 4010,
      admin: 4020,
      ops: 9464,
      playgroundOps: 9465,
    };
    expect(ports({})).toEqual(expected);
    expect(ports({ PORT_BASE: '4000' })).toEqual(expected);
    expect(Object.values(DEFAULT_PORTS)).toEqual(Object.values(expected));
  });

  it('PORT_BASE moves every listener by the same amount, the upstream URL with it', () => {
    expect(ports({ PORT_BASE: '5000' })).toEqual({
      production: 5000,
      certification: 5001,
      playground: 5002,
      upstream: 5010,
      admin: 5020,
      ops: 10464,
      playgroundOps: 10465,
    });
    expect(loadConfig({ PORT_BASE: '5000' }).upstream.url).toBe('http://127.0.0.1:5010');
  });

  it("a port's own variable wins over PORT_BASE", () => {
    expect(ports({ PORT_BASE: '5000', PLAYGROUND_PORT: '6000', OPS_PORT: '0' })).toMatchObject({
      production: 5000,
      playground: 6000,
      ops: 0,
    });
  });

  it('a bad PORT_BASE stops the start, naming the variable and its bounds', () => {
    for (const bad of ['80', 'abc', String(MAX_PORT_BASE + 1), '4000.5']) {
      expect(() => loadConfig({ PORT_BASE: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ PORT_BASE: bad })).toThrow(/PORT_BASE must be an integer from 1024 to 60070, got "/);
    }
    expect(ports({ PORT_BASE: String(MAX_PORT_BASE) }).playgroundOps).toBe(65535);
  });

  it('a taken port fails the listen with a message naming the variable that moves it', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const taken = (holder.address() as net.AddressInfo).port;
    try {
      const err = await listen(http.createServer(), taken, '127.0.0.1', 'PLAYGROUND_PORT').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PortInUseError);
      expect((err as Error).message).toBe(
        `127.0.0.1:${taken} is already in use (PLAYGROUND_PORT): stop what listens there, set PLAYGROUND_PORT to another port, ` +
          'or PORT_BASE to move every port (see README.md "Ports")',
      );
    } finally {
      holder.close();
    }
  });

  it('the walkthrough knows a taken port from what the reference upstream prints, and starts over on another base', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const taken = (holder.address() as net.AddressInfo).port;
    try {
      const run = spawnSync(process.execPath, [bundled('upstream')], {
        env: { ...process.env, UPSTREAM_PORT: String(taken), UPSTREAM_HOST: '127.0.0.1' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.status).not.toBe(0);
      expect(portTaken(run.stdout + run.stderr)).toBe(true);
      expect(portTaken('reference upstream listening on http://127.0.0.1:10010/')).toBe(false);
    } finally {
      holder.close();
    }
  });
});

// One Ctrl-C reaches the gateway more than once (the terminal's SIGINT and npm's relay of it): the
// repeat is ignored, a later or different signal is a second request.
import { describe, expect, it } from 'vitest';
import { RELAYED_SIGNAL_WINDOW_MS, shutdownRequests, shutdownSignals } from '../../server/shutdown-signals.js';

describe('shutdown requests', () => {
  it('the first drains; the same signal relayed within the window is ignored', () => {
    let t = 1000;
    const decide = shutdownRequests(() => t);
    expect(decide('SIGINT')).toBe('drain');
    t += 5;
    expect(decide('SIGINT')).toBe('ignore');
    t += 50;
    expect(decide('SIGINT')).toBe('ignore');
  });

  it('the same signal after the window, or another one, exits at once', () => {
    let t = 0;
    const decide = shutdownRequests(() => t);
    decide('SIGINT');
    expect(decide('SIGTERM')).toBe('exit-now');
    t += RELAYED_SIGNAL_WINDOW_MS;
    expect(decide('SIGINT')).toBe('exit-now');
  });

  it('a supervised playground process leaves SIGINT to its parent', () => {
    expect(shutdownSignals(true)).toEqual({ SIGTERM: 'stop', SIGINT: 'leave-to-parent' });
    expect(shutdownSignals(false)).toEqual({ SIGTERM: 'stop', SIGINT: 'stop' });
  });
});

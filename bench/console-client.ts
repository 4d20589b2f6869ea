// A cookie-keeping client of the support console for the isolation scenario's console load (the
// bench never imports test/): it signs in through the form as a browser does (pre-session cookie
// and the form's CSRF value) and then GETs pages with the session cookie.
export interface BenchConsoleClient {
  signIn(token: string): Promise<void>;
  /** GETs a console page; the status and the body's length. */
  get(path: string): Promise<{ status: number; bytes: number }>;
}

export function benchConsoleClient(base: string): BenchConsoleClient {
  const jar = new Map<string, string>();
  const cookie = () =>
    [...jar]
      .filter(([, v]) => v)
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
  const request = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${base}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: cookie(), origin: base },
    });
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(';')[0]!;
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return { res, text: await res.text() };
  };
  return {
    async signIn(token) {
      const form = await request('/console/sign-in');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1];
      if (!csrf) throw new Error(`console sign-in page without a CSRF value (HTTP ${form.res.status})`);
      const { res } = await request('/console/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, token }).toString(),
      });
      if (res.status !== 303) throw new Error(`console sign-in refused: HTTP ${res.status}`);
    },
    async get(path) {
      const { res, text } = await request(path);
      return { status: res.status, bytes: Buffer.byteLength(text) };
    },
  };
}

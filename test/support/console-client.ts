// A cookie-keeping HTTP client of the support console (forms as a browser posts them), for tests
// that drive the console without a browser.
export interface ConsoleClient {
  get(path: string): Promise<{ status: number; text: string; location: string | null }>;
  post(
    path: string,
    form: Record<string, string>,
    opts?: { csrf?: boolean },
  ): Promise<{ status: number; text: string; location: string | null }>;
  signIn(token: string): Promise<number>;
}

export function consoleClient(base: string): ConsoleClient {
  const jar = new Map<string, string>();
  let csrf = '';
  const remember = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
  };
  const cookie = () =>
    [...jar]
      .filter(([, v]) => v)
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
  const request = async (path: string, init: RequestInit) => {
    const res = await fetch(`${base}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: cookie() },
    });
    remember(res);
    const text = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) csrf = token;
    return { status: res.status, text, location: res.headers.get('location') };
  };
  const client: ConsoleClient = {
    get: (path) => request(path, { method: 'GET' }),
    post: (path, form, opts = {}) =>
      request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...(opts.csrf === false ? {} : { _csrf: csrf }), ...form }).toString(),
      }),
    async signIn(token) {
      await client.get('/console/sign-in');
      const res = await client.post('/console/sign-in', { token });
      if (res.status === 303) await client.get(res.location!);
      return res.status;
    },
  };
  return client;
}

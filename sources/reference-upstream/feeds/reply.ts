// What a feed handler returns; the server turns it into an HTTP response.

export interface Reply {
  status: number;
  body: unknown;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const badRequest = (error: string): Reply => ({ status: 400, body: { error } });
export const notFound = (error: string): Reply => ({ status: 404, body: { error } });

// HTTPS for the partner listeners when TLS_CERT_FILE and TLS_KEY_FILE are set: HTTP/1.1, and with
// TLS_HTTP2=on HTTP/2 too on the same port (ALPN picks; clients without ALPN get HTTP/1.1).
// Renewed certificates are picked up without a restart: both files are polled and, once they
// form a valid pair again, the secure context is swapped for new connections
// (server.setSecureContext); a half-written or mismatched pair keeps the old one and is reported.
// Every answer on TLS carries HSTS (a client that once reached us over HTTPS stays on it).
//
// HTTP/2 goes through node's compatibility API (http2.createSecureServer with allowHTTP1), so the
// listener's handler serves both protocols unchanged. What node:http does for a listener and
// HTTP/2 sessions lack is done here:
// - HTTP/1.1 connections on that port read node:http's settings from the server object (header,
//   request and keep-alive timeouts, their sweep, the header size bound): they are set on it;
// - a stream must deliver its whole request within the request timeout (else 408 and the stream
//   is cancelled), a session with no open stream is closed after the keep-alive timeout, a session
//   carries at most H2_MAX_STREAMS requests at once, header lists are bounded like HTTP/1.1's;
// - closing the server sends every session a GOAWAY (in-flight streams finish), and
//   closeAllConnections() also cuts sessions;
// - a session whose streams are reset more than H2_MAX_RESETS times in H2_RESET_WINDOW_MS (the rapid
//   reset attack: open a stream, cancel it, in a loop) is closed with GOAWAY ENHANCE_YOUR_CALM;
// - request headers over the listener's bound get 431 as on HTTP/1.1 (up to twice the bound; past
//   that, or past 128 header fields, node resets the stream with ENHANCE_YOUR_CALM).
// The GOAWAY, the 431 and the 408 of HTTP/2 are reported like the listener's other defences
// (server/http/defences.ts: counted and logged).
import http2, { type Http2SecureServer, type Http2Session, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import fs from 'node:fs';
import http, { type IncomingMessage, type RequestListener, type ServerOptions } from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { DefenceReport } from './defences.js';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** Serve HTTP/2 beside HTTP/1.1 (TLS_HTTP2). */
  http2?: boolean;
}

/** Requests one HTTP/2 session may have in flight at once (SETTINGS_MAX_CONCURRENT_STREAMS). */
export const H2_MAX_STREAMS = 100;

/**
 * Stream resets one HTTP/2 session may cause within H2_RESET_WINDOW_MS before it is closed. Below
 * H2_MAX_STREAMS on purpose: node releases a reset stream's slot only after the read that carried
 * the reset, so a batch of HEADERS+RST_STREAM pairs fills the slots and node then refuses streams
 * itself, ending the session with INTERNAL_ERROR after 100 refusals; under the slot count, this
 * bound is reached first and the GOAWAY says ENHANCE_YOUR_CALM.
 */
export const H2_MAX_RESETS = 64;
const H2_RESET_WINDOW_MS = 10_000;

const HSTS = 'max-age=31536000';

/** Reads and checks a certificate/key pair; throws an Error naming the files (never their content). */
export function loadTlsPair(files: TlsFiles): { cert: Buffer; key: Buffer } {
  let cert: Buffer;
  let key: Buffer;
  try {
    cert = fs.readFileSync(files.certFile);
    key = fs.readFileSync(files.keyFile);
  } catch (err) {
    throw new Error(`TLS_CERT_FILE/TLS_KEY_FILE cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    tls.createSecureContext({ cert, key });
  } catch (err) {
    throw new Error(
      `TLS_CERT_FILE (${files.certFile}) and TLS_KEY_FILE (${files.keyFile}) are not a usable PEM certificate and matching private key: ` +
        `${(err as Error).message}`,
    );
  }
  return { cert, key };
}

/** The options of a listener that both kinds of server take from it. */
type ListenerServerOptions = ServerOptions & {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
  maxHeaderSize: number;
};

/** An HTTP/1.1 server, over TLS when `files` is given, with HTTP/2 beside it when they say so. */
export function createHttpServer(
  files: TlsFiles | null,
  options: ListenerServerOptions,
  handler: RequestListener,
  report: DefenceReport = () => {},
): http.Server {
  if (!files) return http.createServer(options, handler);
  const withHsts: RequestListener = (req: IncomingMessage, res) => {
    res.setHeader('strict-transport-security', HSTS);
    handler(req, res);
  };
  if (files.http2) return createHttp2Server(files, options, withHsts, report);
  const server = https.createServer({ ...options, ...loadTlsPair(files), minVersion: 'TLSv1.2' }, withHsts);
  // https.Server has every http.Server method the listeners use (close*, timeouts).
  return server as unknown as http.Server;
}

function createHttp2Server(files: TlsFiles, options: ListenerServerOptions, handler: RequestListener, report: DefenceReport): http.Server {
  const server: Http2SecureServer = http2.createSecureServer({
    ...loadTlsPair(files),
    minVersion: 'TLSv1.2',
    allowHTTP1: true,
    // Twice the bound, so that a request between the two gets the 431 HTTP/1.1 gives (checked below).
    settings: { maxConcurrentStreams: H2_MAX_STREAMS, maxHeaderListSize: 2 * options.maxHeaderSize },
  });
  // Read by node:http for the HTTP/1.1 connections of this server.
  const { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval, maxHeaderSize } = options;
  Object.assign(server, { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval, maxHeaderSize });

  const sessions = new Set<Http2Session>();
  // Each session's peer, read when it opens: a destroyed session's socket throws when asked.
  const peers = new WeakMap<Http2Session, string | undefined>();
  const peerOf = (req: Http2ServerRequest) => peers.get(req.stream.session as Http2Session);
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    let open = 0;
    const remoteAddress = session.socket.remoteAddress;
    peers.set(session, remoteAddress);
    const resets = resetCounter(session, () => report('h2_rapid_reset', remoteAddress, { maxResets: H2_MAX_RESETS }));
    session.on('stream', (stream) => {
      open++;
      stream.once('close', () => {
        open--;
        // A stream closed with an error code: cancelled by the client, or refused by node.
        if (stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) resets();
      });
    });
    // Idle: no frame for the keep-alive timeout while no request is open (a slow answer is not idle).
    session.setTimeout(keepAliveTimeout, () => {
      if (open === 0) session.close();
    });
    session.once('close', () => sessions.delete(session));
  });

  server.on('request', (req: Http2ServerRequest | IncomingMessage, res: Http2ServerResponse | http.ServerResponse) => {
    if (req.httpVersionMajor === 2) {
      if (headerListSize(req.rawHeaders) > maxHeaderSize) {
        report('headers_too_large', peerOf(req as Http2ServerRequest), { maxHeaderSize });
        return headersTooLarge(res as Http2ServerResponse);
      }
      limitRequestTime(req as Http2ServerRequest, res as Http2ServerResponse, requestTimeout, () =>
        report('request_timeout', peerOf(req as Http2ServerRequest), { requestTimeoutMs: requestTimeout }),
      );
    }
    handler(req as IncomingMessage, res as http.ServerResponse);
  });

  const close = server.close.bind(server);
  const closeHttp1 = http.Server.prototype.closeAllConnections;
  Object.assign(server, {
    // GOAWAY: a session takes no new request and ends once its streams are answered.
    close(cb?: (err?: Error) => void) {
      for (const s of sessions) s.close();
      return close(cb);
    },
    closeAllConnections() {
      for (const s of sessions) s.destroy();
      closeHttp1.call(server);
    },
  });
  // The listeners use it through http.Server's methods, each of which it now has.
  return server as unknown as http.Server;
}

/**
 * Counts a session's stream resets in a fixed window; past H2_MAX_RESETS the session gets GOAWAY
 * ENHANCE_YOUR_CALM and `onClosed` is called (once: the session is destroyed).
 */
function resetCounter(session: Http2Session, onClosed: () => void): () => void {
  let windowStart = Date.now();
  let count = 0;
  return () => {
    const now = Date.now();
    if (now - windowStart > H2_RESET_WINDOW_MS) {
      windowStart = now;
      count = 0;
    }
    if (++count <= H2_MAX_RESETS || session.destroyed) return;
    // No new stream is accepted; the socket is cut at once (the attacker does not wait for answers).
    // destroy() sends the GOAWAY itself with this code (a goaway() first is followed by NO_ERROR).
    session.destroy(new Error('too many stream resets'), http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    onClosed();
  };
}

/** The size of a header list as HTTP/2 counts it (RFC 9113 section 6.5.2: name, value and 32 octets each). */
function headerListSize(raw: string[]): number {
  let size = 0;
  for (let i = 0; i < raw.length; i++) size += Buffer.byteLength(raw[i]!) + (i % 2 ? 32 : 0);
  return size;
}

/** 431 with the body HTTP/1.1 gives; the stream is ended without error once it is out. */
function headersTooLarge(res: Http2ServerResponse): void {
  const body = JSON.stringify({ errors: [{ message: 'Request headers are too large.', extensions: { code: 'BAD_REQUEST' } }] });
  res.writeHead(431, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'strict-transport-security': HSTS,
  });
  res.end(body, () => {
    if (!res.stream.closed) res.stream.close(http2.constants.NGHTTP2_NO_ERROR);
  });
}

/** The HTTP/2 counterpart of node:http's requestTimeout: the whole request within `ms`, else 408 (`onTimeout` is told). */
function limitRequestTime(req: Http2ServerRequest, res: Http2ServerResponse, ms: number, onTimeout: () => void): void {
  // Headers that ended the stream (no body): the request is complete; a slow answer is not the client's doing.
  if (req.stream.endAfterHeaders) return;
  const timer = setTimeout(() => {
    if (req.complete) return;
    onTimeout();
    const stream = res.stream;
    // The client may still be sending: once the answer is out, the stream is ended without error
    // (RST_STREAM NO_ERROR after a complete response, RFC 9113 section 8.1).
    const end = () => {
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_NO_ERROR);
    };
    // Whoever waits for the rest of the body is told it will not come.
    req.destroy(new Error('request timed out'));
    if (!res.headersSent) {
      const body = JSON.stringify({ errors: [{ message: 'Request timed out.', extensions: { code: 'BAD_REQUEST' } }] });
      res.writeHead(408, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) });
      res.end(body, end);
    } else if (res.writableEnded) {
      end();
    }
  }, ms);
  timer.unref();
  const done = () => clearTimeout(timer);
  req.once('end', done);
  res.once('close', done);
}

/**
 * Polls the pair every `intervalMs` and swaps the secure context when it changed and is valid.
 * Returns the stop function. `onReload` is told of each swap or refused pair.
 */
export function watchTlsFiles(server: http.Server, files: TlsFiles, onReload: (err: Error | null) => void, intervalMs = 1000): () => void {
  const stamp = () =>
    [files.certFile, files.keyFile]
      .map((f) => {
        try {
          const s = fs.statSync(f);
          return `${s.mtimeMs}:${s.size}:${s.ino}`;
        } catch {
          return 'missing';
        }
      })
      .join('|');
  let last = stamp();
  const timer = setInterval(() => {
    const now = stamp();
    if (now === last) return;
    try {
      (server as unknown as tls.Server).setSecureContext(loadTlsPair(files));
      last = now;
      onReload(null);
    } catch (err) {
      // Keep the old context; try again on the next change (e.g. the key written after the cert).
      last = now;
      onReload(err as Error);
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

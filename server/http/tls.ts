// HTTPS for the partner listeners when TLS_CERT_FILE and TLS_KEY_FILE are set (HTTP/1.1).
// Renewed certificates are picked up without a restart: both files are polled and, once they
// form a valid pair again, the secure context is swapped for new connections
// (server.setSecureContext); a half-written or mismatched pair keeps the old one and is reported.
// Every answer on TLS carries HSTS (a client that once reached us over HTTPS stays on it).
import fs from 'node:fs';
import http, { type IncomingMessage, type RequestListener, type ServerOptions } from 'node:http';
import https from 'node:https';
import tls from 'node:tls';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export const HSTS = 'max-age=31536000';

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
    throw new Error(`TLS_CERT_FILE (${files.certFile}) and TLS_KEY_FILE (${files.keyFile}) are not a usable PEM certificate and matching private key: ${(err as Error).message}`);
  }
  return { cert, key };
}

/** An HTTP/1.1 server, over TLS when `files` is given (same options and handler either way). */
export function createHttpServer(files: TlsFiles | null, options: ServerOptions, handler: RequestListener): http.Server {
  if (!files) return http.createServer(options, handler);
  const withHsts: RequestListener = (req: IncomingMessage, res) => {
    res.setHeader('strict-transport-security', HSTS);
    handler(req, res);
  };
  const server = https.createServer({ ...options, ...loadTlsPair(files), minVersion: 'TLSv1.2' }, withHsts);
  // https.Server has every http.Server method the listeners use (close*, timeouts).
  return server as unknown as http.Server;
}

/**
 * Polls the pair every `intervalMs` and swaps the secure context when it changed and is valid.
 * Returns the stop function. `onReload` is told of each swap or refused pair.
 */
export function watchTlsFiles(server: http.Server, files: TlsFiles, onReload: (err: Error | null) => void, intervalMs = 1000): () => void {
  const stamp = () => [files.certFile, files.keyFile].map((f) => {
    try {
      const s = fs.statSync(f);
      return `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch {
      return 'missing';
    }
  }).join('|');
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

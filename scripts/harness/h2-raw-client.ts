// A bare HTTP/2 client over TLS that writes frames itself, for abuse tests: node's own client
// cancels a request whose HEADERS are still queued without sending anything (nghttp2 drops both),
// so it cannot reproduce a rapid-reset attacker, which puts HEADERS and RST_STREAM on the wire
// back to back for every stream.
import tls from 'node:tls';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const TYPE = { HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, GOAWAY: 7 } as const;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const ACK = 0x1;
const CANCEL = 0x8;

interface RawH2Client {
  /** The GOAWAY error code the server sent, or null. */
  readonly goaway: number | null;
  /** True once the server closed the connection. */
  readonly closed: boolean;
  /** Writes HEADERS (a POST with no body) then RST_STREAM CANCEL for `count` new streams in one write. */
  openAndCancel(count: number, headers: Record<string, string>): Promise<void>;
  destroy(): void;
}

function frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

/** HPACK string literal without Huffman coding (lengths under 127). */
function hpackString(s: string): Buffer {
  const bytes = Buffer.from(s, 'latin1');
  if (bytes.length >= 127) throw new Error('header too long for this client');
  return Buffer.concat([Buffer.from([bytes.length]), bytes]);
}

/** A header block: static-table :method POST and :scheme https, the rest literal without indexing. */
function headerBlock(authority: string, path: string, headers: Record<string, string>): Buffer {
  const parts = [Buffer.from([0x83, 0x87]), Buffer.from([0x04]), hpackString(path), Buffer.from([0x01]), hpackString(authority)];
  for (const [name, value] of Object.entries(headers)) parts.push(Buffer.from([0x00]), hpackString(name.toLowerCase()), hpackString(value));
  return Buffer.concat(parts);
}

export function connectRawH2(url: string, ca: string): Promise<RawH2Client> {
  const { hostname, port, host, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    let goaway: number | null = null;
    let closed = false;
    let nextStreamId = 1;
    let inbox = Buffer.alloc(0);
    const socket = tls.connect({ host: hostname, port: Number(port), ca: [ca], ALPNProtocols: ['h2'] }, () => {
      if (socket.alpnProtocol !== 'h2') return reject(new Error(`ALPN chose ${socket.alpnProtocol}`));
      socket.write(Buffer.concat([PREFACE, frame(TYPE.SETTINGS, 0, 0, Buffer.alloc(0))]));
      resolve(client);
    });
    socket.on('error', (err) => (closed ? undefined : reject(err)));
    socket.on('close', () => (closed = true));
    socket.on('data', (chunk: Buffer) => {
      inbox = Buffer.concat([inbox, chunk]);
      while (inbox.length >= 9) {
        const length = inbox.readUIntBE(0, 3);
        if (inbox.length < 9 + length) break;
        const [type, flags] = [inbox[3], inbox[4]!];
        const payload = inbox.subarray(9, 9 + length);
        if (type === TYPE.SETTINGS && !(flags & ACK)) socket.write(frame(TYPE.SETTINGS, ACK, 0, Buffer.alloc(0)));
        if (type === TYPE.GOAWAY) goaway = payload.readUInt32BE(4);
        inbox = inbox.subarray(9 + length);
      }
    });
    const client: RawH2Client = {
      get goaway() {
        return goaway;
      },
      get closed() {
        return closed;
      },
      openAndCancel(count, headers) {
        const block = headerBlock(host, pathname, headers);
        const rst = Buffer.alloc(4);
        rst.writeUInt32BE(CANCEL);
        const frames: Buffer[] = [];
        for (let i = 0; i < count; i++, nextStreamId += 2) {
          frames.push(frame(TYPE.HEADERS, END_STREAM | END_HEADERS, nextStreamId, block), frame(TYPE.RST_STREAM, 0, nextStreamId, rst));
        }
        return new Promise((done) => (closed ? done() : socket.write(Buffer.concat(frames), () => done())));
      },
      destroy: () => socket.destroy(),
    };
  });
}

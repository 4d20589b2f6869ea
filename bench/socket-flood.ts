// The isolation scenario's connection flood (bench/run.ts), a process of its own at the flood's
// niceness: COUNT silent sockets to URL's listener from LOCAL_ADDRESS (another loopback address, so
// the keyed probe's address is not the flood's), each reconnected when the gateway closes it. With
// ADDRESSES=N, spread evenly over N addresses from LOCAL_ADDRESS on (127.0.0.3, .4, ...).
//
// Environment: URL, COUNT, LOCAL_ADDRESS, ADDRESSES, RECONNECT_MS. Prints `READY` once every socket
// was accepted or refused once; runs until stopped.
import { startSocketFlood } from '../scripts/harness/socket-flood.js';

const url = new URL(process.env.URL ?? 'http://127.0.0.1:4000/graphql');
const count = Number(process.env.COUNT ?? 4200);
const addresses = Math.max(1, Number(process.env.ADDRESSES ?? 1));
const [a, b, c, d] = (process.env.LOCAL_ADDRESS ?? '127.0.0.3').split('.').map(Number) as [number, number, number, number];
const floods = Array.from({ length: addresses }, (_, i) =>
  startSocketFlood({
    host: url.hostname,
    port: Number(url.port),
    count: Math.floor(count / addresses) + (i < count % addresses ? 1 : 0),
    localAddress: `${a}.${b}.${c}.${d + i}`,
    reconnectMs: Number(process.env.RECONNECT_MS ?? 100),
  }),
);
const ready = setInterval(() => {
  if (floods.reduce((n, f) => n + f.open + f.closedByServer, 0) < count) return;
  clearInterval(ready);
  process.stdout.write('READY\n');
}, 100);

// The isolation scenario's connection flood (bench/run.ts), a process of its own at the flood's
// niceness: COUNT silent sockets to URL's listener from LOCAL_ADDRESS (another loopback address, so
// the keyed probe's address is not the flood's), each reconnected when the gateway closes it.
//
// Environment: URL, COUNT, LOCAL_ADDRESS, RECONNECT_MS. Prints `READY` once every socket was
// accepted or refused once; runs until stopped.
import { startSocketFlood } from '../scripts/harness/socket-flood.js';

const url = new URL(process.env.URL ?? 'http://127.0.0.1:4000/graphql');
const count = Number(process.env.COUNT ?? 4200);
const flood = startSocketFlood({
  host: url.hostname,
  port: Number(url.port),
  count,
  localAddress: process.env.LOCAL_ADDRESS ?? '127.0.0.3',
  reconnectMs: Number(process.env.RECONNECT_MS ?? 100),
});
const ready = setInterval(() => {
  if (flood.open + flood.closedByServer < count) return;
  clearInterval(ready);
  process.stdout.write('READY\n');
}, 100);

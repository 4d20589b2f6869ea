// Memory allocated per request, for comparing versions of the uncached path (docs/benchmark.md,
// "Profiles and allocation"). Preloaded into the gateway (Node strips the types), e.g.
//   npx tsx bench/run.ts --only uncached --starts 1 --settle 0 --env NODE_OPTIONS=--import=$PWD/bench/alloc-preload.ts
// (an absolute path: with --gateway-root the gateway runs in the other checkout). V8's sampling heap
// profiler runs from the 200th request on (8 KB sampling interval, objects the collector already
// took included); every second the bytes sampled and the requests counted since then (through
// `http.server.request.start`) are written to ALLOC_OUT (default /tmp/alloc-<pid>.json), and the
// whole profile beside it when ALLOC_PROFILE is set (open it as a .heapprofile in DevTools). The
// inspector's own work is counted too (a few percent, more at lower request rates): compare
// versions within one session, at the same load.
import dc from 'node:diagnostics_channel';
import fs from 'node:fs';
import inspector from 'node:inspector';

interface SamplingNode {
  selfSize: number;
  children: SamplingNode[];
}

const out = process.env.ALLOC_OUT || `/tmp/alloc-${process.pid}.json`;
const session = new inspector.Session();
session.connect();
let requests = 0;
let counted = 0;
let sampling = false;

dc.subscribe('http.server.request.start', () => {
  requests++;
  if (sampling) counted++;
  else if (requests === 200) {
    sampling = true;
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 8192,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
});

const bytesOf = (n: SamplingNode): number => n.children.reduce((sum, c) => sum + bytesOf(c), n.selfSize);

setInterval(() => {
  if (!sampling || counted === 0) return;
  const requestsSoFar = counted;
  session.post('HeapProfiler.getSamplingProfile', (err, r) => {
    if (err) return;
    const head = (r.profile as { head: SamplingNode }).head;
    const bytes = bytesOf(head);
    if (process.env.ALLOC_PROFILE) fs.writeFileSync(out.replace(/\.json$/, '.heapprofile'), JSON.stringify(r.profile));
    fs.writeFileSync(
      out,
      JSON.stringify({ requests: requestsSoFar, bytes, kbPerRequest: Math.round((bytes / requestsSoFar / 1024) * 10) / 10 }),
    );
  });
}, 1000).unref();

// Work gathered during one turn of the event loop and run together at its end (setImmediate runs
// after the poll phase has handled every socket that was ready). The listener writes its answers
// this way: sends to many sockets back to back cost the kernel much less than the same sends each
// between two requests' work (docs/benchmark.md, "Answers written together").

/** Returns `add`: the first item of a turn schedules `run`, which gets every item added in that turn, in order. */
export function turnBatch<T>(run: (batch: T[]) => void): (item: T) => void {
  let queued: T[] = [];
  const flush = () => {
    const batch = queued;
    queued = [];
    run(batch);
  };
  return (item: T) => {
    if (queued.push(item) === 1) setImmediate(flush);
  };
}

// What a process opened, closed in reverse order of opening (a connection after what uses it), each
// closer's failure reported and the rest still run.
export type Closer = () => Promise<void> | void;

/** Runs every closer, newest first, and empties the list, so a second call closes nothing twice. */
export async function closeAll(closers: Closer[], onError: (err: unknown) => void = () => {}): Promise<void> {
  for (const c of closers.splice(0).reverse()) await Promise.resolve(c()).catch(onError);
}

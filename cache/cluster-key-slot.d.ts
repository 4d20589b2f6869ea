// cluster-key-slot (ioredis' own slot function) ships no types.
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0-16383) of a key, honouring {hash tags}. */
  export default function calculateSlot(key: string | Buffer): number;
}

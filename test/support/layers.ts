// The gateway's folders, lowest layer first (docs: the design card's one-way arrows). The
// architecture test holds the imports to this order; other scans of the gateway's code walk it too.
export const LAYERS = [
  'lib',
  'domain',
  'sources',
  'transforms',
  'mesh',
  'resolvers',
  'cache',
  'stores',
  'server',
  'support',
  'start',
  'cli',
] as const;

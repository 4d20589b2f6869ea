// Property tests: a fixed seed in CI (reproducible runs; a red build is never a dice roll), a fresh
// one locally so new counterexamples keep being looked for. FC_SEED pins any run.
import fc from 'fast-check';

const seed = process.env.FC_SEED ?? (process.env.CI ? '20261125' : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });

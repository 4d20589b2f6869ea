import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Mesh loads graphql's CommonJS build; make our code use the same copy, or graphql-js sees
    // two realms ("Cannot use GraphQLNonNull from another module or realm").
    alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The container image and Kubernetes run (minutes of image build and podman) is CI's own step,
    // `npm run test:kube`, after the suite.
    exclude: process.env.KUBE_E2E ? [] : ['test/e2e/kube-local.test.ts', '**/node_modules/**'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: end-to-end files start servers; keep parallelism modest so timings stay sane.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: ['default'],
  },
});

import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const UNIT = 'test/unit/**/*.test.ts';

export default defineConfig({
  resolve: {
    // Mesh loads graphql's CommonJS build; make our code use the same copy, or graphql-js sees
    // two realms ("Cannot use GraphQLNonNull from another module or realm").
    alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve('graphql') }],
  },
  test: {
    setupFiles: ['test/setup.ts'],
    // The bundles child processes run (test/support/bundles.ts), built before any test file.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: end-to-end files start servers; keep parallelism modest so timings stay sane.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: ['default'],
    projects: [
      {
        extends: true,
        // Unit files leave no state behind (no module mocks, timers restored): they share a process
        // and its loaded modules instead of each loading the gateway's modules again.
        test: { name: 'unit', include: [UNIT], isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          // The container image and Kubernetes run (minutes of image build and podman) is CI's own step,
          // `npm run test:kube`, after the suite.
          exclude: [UNIT, '**/node_modules/**', ...(process.env.KUBE_E2E ? [] : ['test/e2e/kube-local.test.ts'])],
        },
      },
    ],
  },
});

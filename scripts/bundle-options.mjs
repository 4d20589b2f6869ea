// esbuild options every bundle of the gateway's code shares: scripts/build.mjs (what `npm start`
// runs) and the test suite's bundles of the CLIs it runs as child processes (test/global-setup.ts).

export const common = { bundle: true, platform: 'node', target: 'node20', format: 'esm', logLevel: 'warning' };

// graphql stays external so that a Mesh package the bundle does not carry (a new handler named in
// .meshrc.yaml, imported from node_modules) shares the one copy of graphql-js with it.
// typescript: an optional loader of graphql-tag-pluck the gateway never calls; render-graphiql: only
// the build's playground page uses it. The OpenTelemetry SDK is imported only when tracing is on
// (server/observability/tracer.ts), and shares the one copy of @opentelemetry/api with the
// tracing plugin (the API keys its context entries by object identity: two copies would lose parents).
// zipcodes: 5 MB of JavaScript data that only a ZIP no feed covers needs (lib/zip-database.ts imports
// it on first use); inside the bundle its text would sit in every process's heap from the start.
export const external = [
  'graphql',
  'zipcodes',
  'typescript',
  '@graphql-yoga/render-graphiql',
  '@opentelemetry/api',
  '@opentelemetry/core',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/exporter-trace-otlp-http',
];

// CommonJS libraries inside an ES module bundle still call require() for Node's built-ins.
export const banner = {
  js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
};

// Imported first by the processes' entry points. Node 25 and later define `globalThis.localStorage`
// as a getter that prints `ExperimentalWarning: localStorage is not available…` when read without
// --localstorage-file, and Mesh's cache (localforage) reads it to choose a storage driver. The
// gateway keeps nothing in web storage: the global becomes a plain `undefined` (defined, not read,
// so the getter never runs), and localforage falls back to its in-memory driver as on Node 24.
const own = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
if (own?.get && own.configurable)
  Object.defineProperty(globalThis, 'localStorage', { value: undefined, configurable: true, writable: true });
export {};

// The shape .meshrc.yaml must have before Mesh reads it. Mesh's own checks assume it: given
// `sources: 5` it failed with "config.sources.map is not a function".

/** What is wrong with the top of a parsed .meshrc.yaml, naming the key, or null. */
export function meshrcShapeProblem(raw: unknown): string | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return 'the file is empty or not a mapping';
  const sources = (raw as { sources?: unknown }).sources;
  if (!Array.isArray(sources) || sources.length === 0) return '"sources" must be a list of at least one source';
  for (const [i, source] of sources.entries()) {
    if (!source || typeof source !== 'object' || Array.isArray(source)) return `sources[${i}] must be a mapping with "name" and "handler"`;
    const { name, handler, transforms } = source as { name?: unknown; handler?: unknown; transforms?: unknown };
    if (typeof name !== 'string' || name.trim() === '') return `sources[${i}] needs a "name" (a string)`;
    if (!handler || typeof handler !== 'object' || Array.isArray(handler))
      return `source "${name}" needs a "handler" mapping (openapi:, jsonSchema: or another Mesh handler)`;
    if (transforms !== undefined && !Array.isArray(transforms)) return `source "${name}": "transforms" must be a list`;
  }
  return null;
}

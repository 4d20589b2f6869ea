// V8 keeps a script's source text in its heap for as long as the script lives (functions are
// compiled lazily, from that text): one byte a character when every character is Latin-1, two
// otherwise. The bundle is megabytes of text, so a single curly quote in one library's regular
// expression doubles what every gateway process holds for it (docs/benchmark.md, "Memory and
// start-up"). esbuild's ASCII output already escapes strings, identifiers and untagged templates;
// what it leaves is regular expression literals (where \uXXXX
// means the same character, with or without the u flag, a surrogate pair included), comments, and
// the text of tagged templates (a tag reading the cooked strings, as ours and graphql-tag do, sees
// the same text; one reading `.raw` would see the escape).
/** The source with every character above U+00FF written as a \uXXXX escape; the count escaped. */
export function toLatin1Source(source) {
  let escaped = 0;
  const text = source.replace(/[^\x00-\xff]/g, (c) => {
    escaped++;
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return { text, escaped };
}

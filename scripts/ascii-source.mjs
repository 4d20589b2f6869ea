// V8 keeps a script's source text in its heap for as long as the script lives (functions are
// compiled lazily, from that text). Node 24 decodes a module file as UTF-8 and makes one-byte text
// only when the file is pure ASCII: a single "é" in a comment makes the whole bundle two bytes a
// character (the gateway's 15 MB bundle held 29 MB of heap; docs/benchmark.md, "Memory and
// start-up"). esbuild's ASCII output already escapes strings, identifiers and untagged templates;
// what it leaves is regular expression literals (where \uXXXX means the same character, with or
// without the u flag, a surrogate pair included), comments, and the text of tagged templates (a tag
// reading the cooked strings, as ours and graphql-tag do, sees the same text; one reading `.raw`
// would see the escape).
/** The source with every character above U+007F written as a \uXXXX escape; the count escaped. */
export function toAsciiSource(source) {
  let escaped = 0;
  let text = '';
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (code < 0x80) continue;
    // `\é` (an identity escape, in a string or a regular expression without the u flag) means `é`:
    // its backslash goes, or it would escape the new escape's own backslash.
    let slashes = 0;
    while (i - slashes - 1 >= from && source.charCodeAt(i - slashes - 1) === 0x5c) slashes++;
    text += source.slice(from, slashes % 2 === 1 ? i - 1 : i) + `\\u${code.toString(16).padStart(4, '0')}`;
    from = i + 1;
    escaped++;
  }
  return { text: escaped === 0 ? source : text + source.slice(from), escaped };
}

// Trailing characters removed by a backward scan: `/x+$/` tries the run from every position of
// it, quadratic in its length on text that does not end there.

/** `text` without the run of `char` (one character) at its end. */
export function withoutTrailing(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return end === text.length ? text : text.slice(0, end);
}

/**
 * Config blocks taken from the docs (or from what a command prints), adapted for a test only
 * where it must (ports, paths, users), each change insisting that its text is still there: the
 * doc and the test cannot drift apart unnoticed.
 */

/** The body of the first ```LANG fence in `doc` (named `source` in errors). */
export function fence(doc: string, lang: string, source: string): string {
  const block = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(doc)?.[1];
  if (block === undefined) throw new Error(`${source} has no ${lang} block`);
  return block;
}

/** Replaces `from` with `to`, insisting it is there. */
export function swap(text: string, from: string, to: string, source: string): string {
  if (!text.includes(from)) throw new Error(`${source} no longer contains ${from}`);
  return text.replaceAll(from, to);
}

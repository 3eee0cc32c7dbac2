/**
 * Text the API accepts is valid Unicode, so it can cross the mod link as valid UTF-8. JSON's
 * `\ud800` escape and a JavaScript string can hold a lone surrogate, which UTF-8 cannot encode:
 * Node's own encoder would swap it for U+FFFD and msgpack writes it as invalid bytes. Such text is
 * refused at the door (400 `validation_error` naming the field), never forwarded.
 */

/** In a `u` regex a surrogate class matches only a surrogate that is not half of a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/**
 * The paths (`a.b.0`) of every string, key or value, in a parsed JSON value that is not
 * well-formed. Iterative: a body may nest deeper than the stack.
 */
export function illFormedStrings(root: unknown): string[] {
  const found: string[] = [];
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, path } = next;
    if (typeof value === 'string') {
      if (hasLoneSurrogate(value)) found.push(path);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const at = path === '' ? key : `${path}.${key}`;
        if (hasLoneSurrogate(key)) found.push(at);
        else stack.push({ value: item, path: at });
      }
    }
  }
  return found.sort();
}

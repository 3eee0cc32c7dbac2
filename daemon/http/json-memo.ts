/**
 * JSON text of read-cache results, serialized once per cached result instead of once per
 * request. A value is reused only once it is `freeze`d: read-cache results are snapshots that
 * nothing mutates, shared by every request inside the max-age window. A collection envelope is
 * built per request (its cursor is bound to the key), so only its `data` is reused, and the
 * output is byte-for-byte what JSON.stringify would give for the whole envelope.
 */
export class JsonMemo {
  readonly #frozen = new WeakSet<object>();
  readonly #text = new WeakMap<object, string>();

  /** Marks a value (and a collection's `data`) as never changing again. */
  freeze<T>(value: T): T {
    if (value !== null && typeof value === 'object') {
      this.#frozen.add(value);
      const data = (value as { data?: unknown }).data;
      if (Array.isArray(data)) this.#frozen.add(data);
    }
    return value;
  }

  stringify(value: unknown): string {
    if (value === null || typeof value !== 'object') return JSON.stringify(value);
    if (this.#frozen.has(value)) return this.#memo(value);
    const keys = Object.keys(value);
    const data = (value as { data?: unknown }).data;
    if (keys[0] === 'data' && Array.isArray(data) && this.#frozen.has(data)) {
      const rest = { ...(value as Record<string, unknown>) };
      delete rest['data'];
      const restText = JSON.stringify(rest);
      return `{"data":${this.#memo(data)}${restText === '{}' ? '}' : `,${restText.slice(1)}`}`;
    }
    return JSON.stringify(value);
  }

  #memo(value: object): string {
    let text = this.#text.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      this.#text.set(value, text);
    }
    return text;
  }
}

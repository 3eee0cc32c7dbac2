import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonMemo } from '../../../daemon/http/json-memo.ts';

describe('JsonMemo', () => {
  it('gives exactly what JSON.stringify gives, frozen or not, for any envelope', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 5 }),
        fc.boolean(),
        fc.option(fc.string()),
        fc.option(fc.nat()),
        (data, hasMore, cursor, total) => {
          const memo = new JsonMemo();
          const result = memo.freeze({ data, next: cursor });
          const envelope = {
            data: result.data,
            has_more: hasMore,
            next_cursor: cursor,
            ...(total === null ? {} : { total }),
          };
          expect(memo.stringify(envelope)).toBe(JSON.stringify(envelope));
          expect(memo.stringify(envelope)).toBe(JSON.stringify(envelope));
          expect(memo.stringify(result)).toBe(JSON.stringify(result));
        },
      ),
    );
  });

  it('reuses the text of a frozen value', () => {
    const memo = new JsonMemo();
    const value = memo.freeze({ a: 1 });
    expect(memo.stringify(value)).toBe('{"a":1}');
    (value as { a: number }).a = 2; // nothing may do this to a read-cache result; the memo shows why
    expect(memo.stringify(value)).toBe('{"a":1}');
  });

  it('never reuses the text of a value that was not frozen', () => {
    const memo = new JsonMemo();
    const value = { a: 1 };
    expect(memo.stringify(value)).toBe('{"a":1}');
    value.a = 2;
    expect(memo.stringify(value)).toBe('{"a":2}');
  });
});

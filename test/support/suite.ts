/**
 * One stack or one data dir for a whole `describe` block: started before its first test and
 * closed after its last, in one line instead of the same five in every file.
 *
 * `const stack = suiteStack()` returns a stand-in that forwards every read and write to the stack
 * once `beforeAll` has started it, so test bodies use `stack.call(…)` and `stack.daemon = …` as
 * they would the stack itself. Touching it outside a test (at collection time) throws.
 */
import { afterAll, beforeAll } from 'vitest';
import { makeDataDir, type DataDirSetup, type TestDataDir } from '../../harness/data-dir.ts';
import { startStack, type Stack, type StackOptions } from '../../harness/stack.ts';

export function suiteStack(options: StackOptions = {}): Stack {
  return forSuite(
    () => startStack(options),
    (stack) => stack.close(),
  );
}

export function suiteDataDir(setup?: DataDirSetup): TestDataDir {
  return forSuite(
    () => makeDataDir(setup),
    (data) => data.remove(),
  );
}

function forSuite<T extends object>(open: () => Promise<T>, close: (value: T) => Promise<void>): T {
  let value: T | undefined;
  beforeAll(async () => {
    value = await open();
  });
  afterAll(async () => {
    if (value !== undefined) await close(value);
  });
  const started = (): T => {
    if (value === undefined) throw new Error('used before beforeAll started it: use it inside a test');
    return value;
  };
  return new Proxy({} as T, {
    get(_target, name) {
      const target = started();
      const member: unknown = Reflect.get(target, name, target);
      return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(target) : member;
    },
    set(_target, name, member) {
      return Reflect.set(started(), name, member);
    },
  });
}

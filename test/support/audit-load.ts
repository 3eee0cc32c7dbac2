/**
 * Concurrent authenticated writes against a running `modgate serve`, for the audit-rotation
 * tests: each write is audited (a 503 without a mod is audited like any other outcome), and the
 * request ids it answered with are what the audit files must hold, each exactly once.
 */

/** An authenticated write over HTTP; resolves with the request id it was answered with. */
export function auditedWrite(apiPort: number, key: string): () => Promise<string> {
  return async () => {
    const response = await fetch(`http://127.0.0.1:${apiPort}/v1/commands`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ verb: 'Announce', args: ['rotation'] }),
    });
    await response.arrayBuffer();
    return response.headers.get('x-request-id')!;
  };
}

/**
 * The request ids of the /v1 writes' audit lines (the text of an audit.jsonl, or of a rotated
 * copy): those with a key. The admin writes that set the data dir up are audited too (key_id
 * null), before serve runs, and are not what these tests count.
 */
export function requestIdsOf(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { request_id: string; key_id: string | null })
    .filter((line) => line.key_id !== null)
    .map((line) => line.request_id);
}

/**
 * `total` writes, `concurrency` in flight at any time; `during[n]` starts (without holding the
 * writers back) when write number n is sent. Resolves with every write's request id once all
 * writes and every `during` task have finished.
 */
export async function writeConcurrently(
  write: () => Promise<string>,
  total: number,
  concurrency: number,
  during: Record<number, () => Promise<void>>,
): Promise<string[]> {
  const sent: Promise<string>[] = [];
  const tasks: Promise<void>[] = [];
  let next = 0;
  const writer = async () => {
    while (next < total) {
      next += 1;
      const task = during[next];
      if (task) tasks.push(task());
      const id = write();
      sent.push(id);
      await id;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, writer));
  await Promise.all(tasks);
  return Promise.all(sent);
}

/**
 * A bot developer's code, type-checked (a full program: tens of seconds on a busy machine) with the repository's strict compiler options against the
 * typed client: what compiles and what the compiler refuses.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONSUMER = `${ROOT}test/client/consumer-snippet.ts`;

function typeErrors(source: string): string[] {
  const config = ts.readConfigFile(`${ROOT}tsconfig.json`, (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === CONSUMER ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === CONSUMER || fileExists(name);
  const program = ts.createProgram([CONSUMER], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === CONSUMER)
    .map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
}

const consumer = (query: string) => `
import { createModgateClient } from '../../client/index.ts';

const client = createModgateClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'mg_live_example' });

export async function onlineNames(): Promise<string[]> {
  const { data, error } = await client.GET('/v1/players', { params: { query: ${query} } });
  if (error) throw new Error(error.error.code + ': ' + error.error.message);
  return data.data.map((row) => row.char_name);
}
`;

describe('a consumer of the typed client', () => {
  it('type-checks a roster query with a boolean and a number under strict options', () => {
    expect(typeErrors(consumer('{ online: true, limit: 10 }'))).toEqual([]);
  }, 60_000);

  it('is refused when it sends the boolean and the number as text', () => {
    const errors = typeErrors(consumer("{ online: 'true', limit: '10' }"));
    expect(errors).toEqual([
      "TS2322: Type 'string' is not assignable to type 'boolean | undefined'.",
      "TS2322: Type 'string' is not assignable to type 'number'.",
    ]);
  }, 60_000);
});

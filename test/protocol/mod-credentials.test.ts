/**
 * PROTOCOL §1.2 documents mod-credentials.json for mod authors: its example must be a file the
 * reference reads, whose keys are the golden identities it says they are, and its field table
 * must name exactly the fields the daemon's data dir writes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { modCredentialsFile } from '../../daemon/store/mod-credentials.ts';
import { identityFromSeed } from '../../protocol/keys.ts';
import { parseModCredentials } from '../../protocol/mod-credentials.ts';

const protocolMd = readFileSync(new URL('../../protocol/PROTOCOL.md', import.meta.url), 'utf8');
const golden = JSON.parse(
  readFileSync(new URL('../../protocol/vectors/golden.json', import.meta.url), 'utf8'),
) as { inputs: Record<string, string> };

/** The text of §1.2, up to the next section. */
function section(): string {
  const start = protocolMd.indexOf('### §1.2 mod-credentials.json');
  return protocolMd.slice(start, protocolMd.indexOf('\n## §2', start));
}

/** The JSON example of §1.2. */
function example(): string {
  return /```json\n([\s\S]*?)```/.exec(section())?.[1] ?? '';
}

describe('mod-credentials.json as PROTOCOL §1.2 documents it', () => {
  it('gives an example the reference parses, holding the golden mod seed and daemon key', () => {
    const credentials = parseModCredentials(example());
    const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
    expect(hex(credentials.identity.secretKey)).toBe(golden.inputs['mod_seed']);
    expect(hex(identityFromSeed(credentials.identity.secretKey).publicKey)).toBe(
      golden.inputs['mod_public_key'],
    );
    expect(hex(credentials.daemonPublicKey)).toBe(golden.inputs['daemon_public_key']);
    expect(credentials.url).toBe('ws://127.0.0.1:8788');
  });

  it('lists in its table exactly the fields the data dir writes', () => {
    const written = modCredentialsFile.serialize(parseModCredentials(example()));
    const documented = [...section().matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]);
    expect(documented).toEqual(Object.keys(written as object));
  });
});

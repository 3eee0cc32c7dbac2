/**
 * Each reaction of daemon/reactions.ts on real parts over a real data dir (set up through the CLI):
 * the change is made to the files as an admin write or an operator would make it, the snapshot
 * loaded again, and the reaction's guarantee checked on the part it reaches. Then the wiring: a
 * reload sets off the whole list, a revoked token its own.
 */
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModLinkServer } from '../../protocol/link-server.ts';
import { startModBridge } from '../../bridge/index.ts';
import { AdminEventStreams } from '../../daemon/admin/admin-event-streams.ts';
import { AdminTokens } from '../../daemon/admin/admin-tokens.ts';
import { SessionStore } from '../../daemon/admin/sessions.ts';
import { FileEventLog } from '../../daemon/events/event-log.ts';
import { readEndpoints } from '../../daemon/events/webhooks/endpoint-file.ts';
import { WebhookService } from '../../daemon/events/webhooks/webhook-service.ts';
import { ApiError } from '../../daemon/http/api-error.ts';
import { StreamAccess } from '../../daemon/http/stream-access.ts';
import type { ResponseStream, StreamSink } from '../../daemon/http/types.ts';
import { silentLogger } from '../../daemon/log/log.ts';
import {
  closeUntrustedModLink,
  cutAdminStreamsOfToken,
  disableWebhooksOfRevokedKeys,
  endPanelSessionsOfToken,
  Hook,
  reauthorizeApiStreams,
  REACTIONS,
  type ReactingParts,
  recheckAdminStreams,
  refreshAdminTokens,
  wireReactions,
} from '../../daemon/reactions.ts';
import { createAdminToken, revokeAdminToken } from '../../daemon/store/admin-tokens.ts';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { revokeKey } from '../../daemon/store/key-admin.ts';
import { modCredentialsFile } from '../../daemon/store/mod-credentials.ts';
import { modKeysFile } from '../../daemon/store/mod-keys.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { nextEvent } from '../protocol/support.ts';

/** The in-process clients still connected: afterEach disconnects them, as a client going away does. */
const connected = new Set<() => void>();

/** An in-process sink: what the stream wrote, and whether it was ended. */
function collect(stream: ResponseStream) {
  const sink = { text: '', ended: false };
  const onClose: (() => void)[] = [];
  const disconnect = () => {
    connected.delete(disconnect);
    for (const listener of onClose) listener();
  };
  connected.add(disconnect);
  const target: StreamSink = {
    write: (text) => void (sink.text += text),
    bufferedBytes: () => 0,
    end: () => {
      sink.ended = true;
      disconnect();
    },
    onClose: (listener) => void onClose.push(listener),
    onDrain: () => undefined,
  };
  stream.start(target);
  return sink;
}

describe('the reactions to a change', () => {
  let data: TestDataDir;
  let dataDir: DataDir;
  let parts: ReactingParts;
  let events: FileEventLog;
  const warnings: string[] = [];

  beforeEach(async () => {
    data = await makeDataDir();
    dataDir = await DataDir.open(data.dir);
    const snapshot = await dataDir.load();
    const { identity } = snapshot.current();
    events = await FileEventLog.open(data.dir);
    parts = {
      snapshot,
      tokens: new AdminTokens({ dataDir, snapshot: () => snapshot.current(), log: silentLogger }),
      sessions: new SessionStore(),
      webhooks: await WebhookService.start({
        dataDir: data.dir,
        eventLog: events,
        serverId: identity.serverId,
        logger: silentLogger,
        keys: () => snapshot.current().keysById,
      }),
      link: new ModLinkServer({
        identity: { publicKey: identity.daemonPublicKey, secretKey: identity.daemonSecretKey },
        trustedModKeys: () => snapshot.current().trustedModKeys,
      }),
      apiStreams: new Hook(),
      adminStreams: new AdminEventStreams({ eventLog: events, snapshot: () => snapshot.current() }),
      log: { ...silentLogger, warn: (message) => void warnings.push(message) },
    };
  });

  afterEach(async () => {
    warnings.length = 0;
    // A stream still open keeps its heartbeat interval armed after the file.
    for (const disconnect of [...connected]) disconnect();
    await parts.link.close();
    await parts.webhooks.close();
    await parts.tokens.close();
    await events.close();
    await data.remove();
  });

  /** An admin token the running daemon knows, made as `POST /admin/v1/tokens` makes it. */
  const adminToken = async () => {
    const created = await createAdminToken(dataDir, 'ops', new Date());
    await parts.snapshot.reload();
    refreshAdminTokens(parts, parts.snapshot.current());
    return created;
  };
  /** An admin event stream opened with the token, through a panel session when one is given. */
  const adminStream = (tokenId: string, session: { id: string } | null = null) =>
    collect(
      parts.adminStreams.open(
        { kind: 'token', token_id: tokenId, name: 'ops' },
        'req_1',
        0,
        null,
        session && { expiry: () => parts.sessions.expiryOf(session.id) },
      ),
    );

  it('refreshAdminTokens refuses a revoked admin token and tells who listens for its revocation', async () => {
    const created = await adminToken();
    const revoked: string[] = [];
    parts.tokens.onRevoked((id) => revoked.push(id));
    await revokeAdminToken(dataDir, created.id, new Date());
    await parts.snapshot.reload();
    expect(revoked).toEqual([]);
    refreshAdminTokens(parts, parts.snapshot.current());
    expect(revoked).toEqual([created.id]);
    expect(parts.tokens.verify(created.token)).toBeNull();
  });

  it('disableWebhooksOfRevokedKeys disables the endpoints of a revoked key and leaves the others', async () => {
    const revokedKey = await data.createKey('--name', 'revoked');
    const keptKey = await data.createKey('--name', 'kept');
    await parts.snapshot.reload();
    const endpoint = (createdBy: string) =>
      parts.webhooks.create({
        url: 'https://bot.example/hook',
        events: ['*'],
        format: 'standard',
        allowHttp: false,
        sensitiveFields: false,
        description: null,
        createdBy,
      });
    const [ofRevoked, ofKept] = [await endpoint(revokedKey.id), await endpoint(keptKey.id)];
    await revokeKey(dataDir, revokedKey.id, new Date());
    await parts.snapshot.reload();
    const recorded = async (id: string) => (await readEndpoints(data.dir)).find((e) => e.id === id);
    expect((await recorded(ofRevoked.id))?.disabledAt).toBeNull();
    await disableWebhooksOfRevokedKeys(parts);
    expect(await recorded(ofRevoked.id)).toMatchObject({ disabledReason: 'key_revoked' });
    expect((await recorded(ofKept.id))?.disabledAt).toBeNull();
  });

  it('closeUntrustedModLink ends the link of a mod key taken from mod-keys.json, and only then', async () => {
    const { port } = await parts.link.listen('127.0.0.1', 0);
    const credentials = await dataDir.read(modCredentialsFile);
    const bridge = startModBridge({
      url: `ws://127.0.0.1:${port}`,
      identity: credentials.identity,
      daemonPublicKey: credentials.daemonPublicKey,
      modVersion: '2.0.47',
      handlers: {},
      backoff: { initialMs: 10_000, maxMs: 10_000 },
    });
    try {
      await nextEvent(parts.link, 'connect');
      closeUntrustedModLink(parts);
      expect(parts.link.peer).not.toBeNull();
      await dataDir.update(modKeysFile, () => ({ trusted: [] }));
      await parts.snapshot.reload();
      const closed = nextEvent(bridge, 'disconnect');
      closeUntrustedModLink(parts);
      expect(parts.link.peer).toBeNull();
      expect(warnings).toEqual(['mod link closed: its key is no longer trusted']);
      await closed;
    } finally {
      await bridge.close();
    }
  });

  it('reauthorizeApiStreams checks the open /v1 streams again, ending one the change refuses', async () => {
    const key = await data.createKey('--name', 'bot');
    await parts.snapshot.reload();
    const access = new StreamAccess({
      snapshot: () => parts.snapshot.current(),
      now: Date.now,
      onChange: parts.apiStreams.subscribe,
    });
    const ended: ApiError[] = [];
    access.watch({
      recheck: (snapshot) => {
        if (snapshot.keysById.get(key.id)?.revokedAt !== null) throw new ApiError('unauthorized');
        return null;
      },
      revoke: (error) => ended.push(error),
    });
    reauthorizeApiStreams(parts);
    expect(ended).toEqual([]);
    await revokeKey(dataDir, key.id, new Date());
    await parts.snapshot.reload();
    reauthorizeApiStreams(parts);
    expect(ended.map((error) => error.code)).toEqual(['unauthorized']);
  });

  it('cutAdminStreamsOfToken ends the admin streams the revoked token opened, and no other', async () => {
    const [revoked, kept] = [await adminToken(), await adminToken()];
    const [ofRevoked, ofKept] = [adminStream(revoked.id), adminStream(kept.id)];
    cutAdminStreamsOfToken(parts, revoked.id);
    expect(ofRevoked.ended).toBe(true);
    expect(ofRevoked.text).toContain('"code":"unauthorized"');
    expect(ofKept.ended).toBe(false);
  });

  it('endPanelSessionsOfToken signs out the panel sessions made from the revoked token', () => {
    const made = parts.sessions.create({ token_id: 'adm_revoked', name: 'ops', role: 'owner' });
    const other = parts.sessions.create({ token_id: 'adm_kept', name: 'ops', role: 'owner' });
    endPanelSessionsOfToken(parts, 'adm_revoked');
    expect(parts.sessions.find(made.secret)).toBeUndefined();
    expect(parts.sessions.find(other.secret)).toBeDefined();
  });

  it('recheckAdminStreams ends an admin stream whose panel session has ended', async () => {
    const { id } = await adminToken();
    const { session, secret } = parts.sessions.create({ token_id: id, name: 'ops', role: 'owner' });
    const stream = adminStream(id, session);
    recheckAdminStreams(parts);
    expect(stream.ended).toBe(false);
    parts.sessions.end(secret);
    recheckAdminStreams(parts);
    expect(stream.ended).toBe(true);
    expect(stream.text).toContain('"code":"unauthorized"');
  });

  it('wireReactions runs every reaction of a data dir change, and of the revocations it sets off', async () => {
    const unwire = wireReactions(parts);
    const created = await adminToken();
    const made = parts.sessions.create({ token_id: created.id, name: 'ops', role: 'owner' });
    const streams = [adminStream(created.id), adminStream(created.id, made.session)];
    let apiStreamsChecked = 0;
    parts.apiStreams.subscribe(() => void (apiStreamsChecked += 1));
    await revokeAdminToken(dataDir, created.id, new Date());
    await parts.snapshot.reload();
    expect(parts.tokens.verify(created.token)).toBeNull();
    expect(parts.sessions.find(made.secret)).toBeUndefined();
    expect(streams.map((stream) => stream.ended)).toEqual([true, true]);
    expect(apiStreamsChecked).toBe(1);
    unwire();
    await parts.snapshot.reload();
    expect(apiStreamsChecked).toBe(1);
  });

  it('lists each reaction once', () => {
    const all = Object.values(REACTIONS).flat();
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('docs/architecture.md, "What a change sets off"', () => {
  it('names every reaction, in the order each list runs them', async () => {
    const page = await readFile(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const section = page.split('## What a change sets off')[1]?.split('\n## ')[0] ?? '';
    const named = [...section.matchAll(/^\d+\. `(\w+)`/gm)].map((match) => match[1]);
    expect(named).toEqual(Object.values(REACTIONS).flatMap((list) => list.map((reaction) => reaction.name)));
  });
});

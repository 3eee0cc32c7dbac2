/**
 * The panel's sessions and one-time codes (daemon/admin/sessions.ts) and its cookie
 * (session-cookie.ts): expiry, single use, the caps, sign-out by token, and the cookie's flags.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  clearedSessionCookie,
  readSessionCookie,
  sessionCookie,
  sessionCookieName,
} from '../../../daemon/admin/session-cookie.ts';
import { SessionStore } from '../../../daemon/admin/sessions.ts';
import { ADMIN_FILES } from '../../../daemon/store/data-dir-layout.ts';

const owner = { token_id: 'adm_1', name: 'ops', role: 'owner' as const };

function clock(start = 1_000_000) {
  const time = { now: start };
  return { time, now: () => time.now };
}

describe('SessionStore', () => {
  it('finds a session by its secret until it expires', () => {
    const { time, now } = clock();
    const store = new SessionStore({ ttlMs: 60_000 }, now);
    const { secret, session } = store.create(owner);
    expect(store.find(secret)).toEqual(session);
    expect(session.expires_at.getTime() - session.created_at.getTime()).toBe(60_000);
    time.now += 60_000;
    expect(store.find(secret)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('knows no secret it did not issue, and keeps only hashes', () => {
    const store = new SessionStore();
    const { secret, session } = store.create(owner);
    const last = secret.endsWith('A') ? 'B' : 'A';
    expect(store.find(`${secret.slice(0, -1)}${last}`)).toBeUndefined();
    expect(JSON.stringify(session)).not.toContain(secret);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('signs out one session, and every session of a revoked token', () => {
    const store = new SessionStore();
    const first = store.create(owner);
    const second = store.create(owner);
    const other = store.create({ token_id: 'adm_2', name: 'other', role: 'owner' });
    expect(store.end(first.secret)).toBe(true);
    expect(store.find(first.secret)).toBeUndefined();
    expect(store.endForToken('adm_1')).toBe(1);
    expect(store.find(second.secret)).toBeUndefined();
    expect(store.find(other.secret)).toBeDefined();
  });

  it('tells its listeners when sessions end before their expiry: sign-out, token revoked, the cap', () => {
    const store = new SessionStore({ maxSessions: 2 });
    let told = 0;
    store.onEnded(() => (told += 1));
    const first = store.create(owner);
    const second = store.create(owner);
    expect(told).toBe(0);
    store.create({ token_id: 'adm_2', name: 'other', role: 'owner' });
    expect(told).toBe(1);
    expect(store.expiryOf(first.session.id)).toBeNull();
    expect(store.expiryOf(second.session.id)).toEqual(second.session.expires_at);
    expect(store.end(second.secret)).toBe(true);
    expect(store.end(second.secret)).toBe(false);
    expect(told).toBe(2);
    expect(store.endForToken('adm_2')).toBe(1);
    expect(store.endForToken('adm_2')).toBe(0);
    expect(told).toBe(3);
  });

  it('knows a session by its short id until it expires', () => {
    const { time, now } = clock();
    const store = new SessionStore({ ttlMs: 60_000 }, now);
    const { session } = store.create(owner);
    expect(store.expiryOf(session.id)).toEqual(session.expires_at);
    time.now += 60_000;
    expect(store.expiryOf(session.id)).toBeNull();
    expect(store.expiryOf('000000000000')).toBeNull();
  });

  it('signs out the oldest session at the cap, so memory stays bounded', () => {
    const store = new SessionStore({ maxSessions: 3 });
    const secrets = Array.from({ length: 5 }, () => store.create(owner).secret);
    expect(store.size).toBe(3);
    expect(store.find(secrets[0]!)).toBeUndefined();
    expect(store.find(secrets[1]!)).toBeUndefined();
    expect(store.find(secrets[4]!)).toBeDefined();
  });

  it('redeems a one-time code once, and never after it expires', () => {
    const { time, now } = clock();
    const store = new SessionStore({ codeTtlMs: 1_000 }, now);
    const link = { token_id: null, name: 'login link (uid 1000)', role: 'owner' as const };
    const { code } = store.mintCode(link);
    expect(store.redeemCode(code)).toEqual(link);
    expect(store.redeemCode(code)).toBeUndefined();
    const late = store.mintCode(link).code;
    time.now += 1_000;
    expect(store.redeemCode(late)).toBeUndefined();
  });

  it('drops the oldest unspent code at the cap', () => {
    const store = new SessionStore({ maxCodes: 2 });
    const codes = [1, 2, 3].map(() => store.mintCode(owner).code);
    expect(store.redeemCode(codes[0]!)).toBeUndefined();
    expect(store.redeemCode(codes[2]!)).toEqual(owner);
  });
});

describe('SessionStore on a data dir', () => {
  async function withDir(test: (dir: string) => Promise<void>): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'modgate-sessions-'));
    try {
      await test(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const keepAll = { tokenActive: () => true, onError: (error: unknown) => expect.fail(String(error)) };

  it('keeps its sessions across a reopen, as hashes in a 0600 file', () =>
    withDir(async (dir) => {
      const first = await SessionStore.open(dir, keepAll);
      const { secret, session } = first.create(owner);
      await first.saved();
      const text = await readFile(join(dir, ADMIN_FILES.sessions), 'utf8');
      expect(text).not.toContain(secret);
      expect((await stat(join(dir, ADMIN_FILES.sessions))).mode & 0o777).toBe(0o600);
      const second = await SessionStore.open(dir, keepAll);
      expect(second.find(secret)).toEqual(session);
    }));

  it('drops on open the expired sessions and those whose token is no longer active', () =>
    withDir(async (dir) => {
      const { time, now } = clock();
      const first = await SessionStore.open(dir, keepAll, { ttlMs: 60_000 }, now);
      const old = first.create(owner).secret;
      time.now += 30_000;
      const revoked = first.create({ ...owner, token_id: 'adm_2' }).secret;
      const kept = first.create(owner).secret;
      await first.saved();
      time.now += 40_000;
      const tokenActive = (id: string) => id !== 'adm_2';
      const second = await SessionStore.open(dir, { ...keepAll, tokenActive }, { ttlMs: 60_000 }, now);
      expect(second.size).toBe(1);
      expect(second.find(kept)).toBeDefined();
      expect([second.find(old), second.find(revoked)]).toEqual([undefined, undefined]);
      await second.saved();
      expect(JSON.parse(await readFile(join(dir, ADMIN_FILES.sessions), 'utf8')).sessions).toHaveLength(1);
    }));

  it("takes a signed-out session and a revoked token's sessions off the file, and holds at most the cap", () =>
    withDir(async (dir) => {
      const first = await SessionStore.open(dir, keepAll, { maxSessions: 2 });
      const [a, b, c] = [1, 2, 3].map((n) => first.create({ ...owner, token_id: `adm_${n}` }).secret);
      first.end(c!);
      await first.saved();
      let second = await SessionStore.open(dir, keepAll, { maxSessions: 2 });
      expect([second.find(a!), second.find(c!)]).toEqual([undefined, undefined]);
      expect(second.find(b!)).toBeDefined();
      second.endForToken('adm_2');
      await second.saved();
      second = await SessionStore.open(dir, keepAll, { maxSessions: 2 });
      expect(second.size).toBe(0);
    }));

  it('starts empty from a broken file, says so, and replaces it at the next sign-in', () =>
    withDir(async (dir) => {
      await writeFile(join(dir, ADMIN_FILES.sessions), '{not json', { mode: 0o600 });
      const errors: unknown[] = [];
      const store = await SessionStore.open(dir, { tokenActive: () => true, onError: (e) => errors.push(e) });
      expect(errors).toHaveLength(1);
      const { secret } = store.create(owner);
      await store.saved();
      expect((await SessionStore.open(dir, keepAll)).find(secret)).toBeDefined();
    }));
});

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Strict, on Path=/, and expires with the session', () => {
    expect(sessionCookie('abc', 3_600_000, false)).toBe(
      'modgate_session=abc; HttpOnly; SameSite=Strict; Path=/; Max-Age=3600',
    );
  });

  it('is Secure with the __Host- prefix under TLS', () => {
    expect(sessionCookie('abc', 60_000, true)).toBe(
      '__Host-modgate_session=abc; HttpOnly; SameSite=Strict; Path=/; Max-Age=60; Secure',
    );
    expect(clearedSessionCookie(true)).toContain('Max-Age=0');
  });

  it('is read from among other cookies, and a malformed or foreign one is ignored', () => {
    const name = sessionCookieName(false);
    expect(readSessionCookie(`a=1; ${name}=Zm9v_-9; b=2`, false)).toBe('Zm9v_-9');
    expect(readSessionCookie(`${name}=bad value`, false)).toBeUndefined();
    expect(readSessionCookie(`${name}=${'a'.repeat(129)}`, false)).toBeUndefined();
    expect(readSessionCookie(`${name}=abc`, true)).toBeUndefined();
    expect(readSessionCookie(undefined, false)).toBeUndefined();
  });
});

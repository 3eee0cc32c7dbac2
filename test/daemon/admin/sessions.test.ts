/**
 * The panel's sessions and one-time codes (daemon/admin/sessions.ts) and its cookie
 * (session-cookie.ts): expiry, single use, the caps, sign-out by token, and the cookie's flags.
 */
import { describe, expect, it } from 'vitest';
import {
  clearedSessionCookie,
  readSessionCookie,
  sessionCookie,
  sessionCookieName,
} from '../../../daemon/admin/session-cookie.ts';
import { SessionStore } from '../../../daemon/admin/sessions.ts';

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

import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  generateSecret,
  secretKey,
  SECRET_PATTERN,
  signatureHeaders,
} from '../../../../daemon/events/webhooks/signing.ts';

describe('Standard Webhooks signing', () => {
  it('generates whsec_ secrets of 32 random bytes', () => {
    const secret = generateSecret();
    expect(secret).toMatch(SECRET_PATTERN);
    expect(secretKey(secret)).toHaveLength(32);
    expect(generateSecret()).not.toBe(secret);
  });

  it('signs exactly as the standardwebhooks library does, and the library verifies it', () => {
    const secret = generateSecret();
    const body = Buffer.from('{"id":1,"type":"player.banned","at":"2030-01-01T00:00:00.000Z","data":{}}');
    const now = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders(secret, 'msg_srv_x_1', now, body);
    const library = new Webhook(secret);
    expect(headers['webhook-signature']).toBe(
      library.sign('msg_srv_x_1', new Date(now * 1000), body.toString()),
    );
    expect(library.verify(body.toString(), { ...headers })).toEqual(JSON.parse(body.toString()));
  });

  it('produces a signature the library rejects once the body changes', () => {
    const secret = generateSecret();
    const headers = signatureHeaders(secret, 'msg_1', Math.floor(Date.now() / 1000), Buffer.from('{"a":1}'));
    expect(() => new Webhook(secret).verify('{"a":2}', { ...headers })).toThrow();
  });

  it('carries one signature per secret during an overlap, and a receiver holding either accepts it', () => {
    const [next, old, stranger] = [generateSecret(), generateSecret(), generateSecret()];
    const body = '{"id":7,"type":"player.muted","at":"2030-01-01T00:00:00.000Z","data":{}}';
    const headers = signatureHeaders([next, old], 'msg_2', Math.floor(Date.now() / 1000), Buffer.from(body));
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(next).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(old).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(stranger).verify(body, { ...headers })).toThrow();
  });
});

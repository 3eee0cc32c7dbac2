import { describe, expect, it } from 'vitest';
import { checkWebhookUrl } from '../../../../daemon/events/webhooks/url-policy.ts';

const strict = { allowHttp: false };

describe('webhook URL policy', () => {
  it('accepts https anywhere and plain http to loopback addresses', () => {
    for (const url of [
      'https://example.com/hook',
      'http://127.0.0.1:8080/x',
      'http://localhost/x',
      'http://[::1]:9/x',
    ]) {
      expect(checkWebhookUrl(url, strict)).toHaveProperty('url');
    }
  });

  it('refuses plain http to another host unless the operator allows it', () => {
    expect(checkWebhookUrl('http://example.com/hook', strict)).toEqual({
      error: expect.stringContaining('plain http is allowed only to a loopback address'),
    });
    expect(checkWebhookUrl('http://example.com/hook', { allowHttp: true })).toHaveProperty('url');
  });

  it('refuses other schemes, relative URLs, credentials and overlong URLs', () => {
    for (const url of [
      'ftp://example.com/',
      '/hook',
      'https://user:pw@example.com/',
      `https://e.com/${'a'.repeat(2_100)}`,
    ]) {
      expect(checkWebhookUrl(url, { allowHttp: true })).toHaveProperty('error');
    }
  });
});

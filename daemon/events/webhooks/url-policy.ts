/**
 * The form of a webhook URL: https, or plain http only to a loopback address (localhost,
 * 127.0.0.0/8, ::1) unless the operator registered the endpoint with `--allow-http`. No user name
 * or password in the URL (the secret signs the request; credentials in a URL end up in logs).
 * Checked when an endpoint is registered and again before every delivery, so a hand-edited
 * webhooks.json cannot send events somewhere the rules forbid. Which addresses the host may
 * resolve to is the other half of the rule: address-policy.ts.
 */
import { isLoopbackHost } from '../../host-port.ts';

export const WEBHOOK_URL_MAX_LENGTH = 2_048;

export interface UrlPolicy {
  /** Plain http to a non-loopback host is allowed (the operator's `--allow-http`). */
  readonly allowHttp: boolean;
}

/** The parsed URL, or the reason it is refused (one sentence, for the operator or the client). */
export function checkWebhookUrl(text: string, policy: UrlPolicy): { url: URL } | { error: string } {
  if (text.length > WEBHOOK_URL_MAX_LENGTH) {
    return { error: `a webhook URL has at most ${WEBHOOK_URL_MAX_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Not the text itself: this may reach a log, and a Discord URL carries its token.
    return { error: 'not an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { error: 'a webhook URL must start with https:// (or http:// to a loopback address)' };
  }
  if (url.username !== '' || url.password !== '') {
    return { error: 'a webhook URL must not carry a user name or password' };
  }
  if (url.protocol === 'http:' && !policy.allowHttp && !isLoopbackHost(hostOf(url))) {
    return {
      error: `plain http is allowed only to a loopback address; use https, or let the operator register it with --allow-http`,
    };
  }
  return { url };
}

/** The host without IPv6 brackets: `[::1]` → `::1`. */
function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The panel's session cookie on the wire (docs/admin.md, "The panel"): `HttpOnly` (no script
 * reads it), `SameSite=Strict` (no other site's page sends it), `Path=/`, `Max-Age` of the
 * session, and under TLS `Secure` with the `__Host-` prefix (the browser then refuses it from
 * any other host or path). Never logged: no log line carries a request's or a response's headers.
 */

const NAME = 'modgate_session';
const SECURE_NAME = `__Host-${NAME}`;

/** The longest cookie value read: a session secret is 43 characters. */
const MAX_VALUE_LENGTH = 128;

export function sessionCookieName(tls: boolean): string {
  return tls ? SECURE_NAME : NAME;
}

/** The Set-Cookie value that starts a session of `maxAgeMs`. */
export function sessionCookie(secret: string, maxAgeMs: number, tls: boolean): string {
  const attributes = [`${sessionCookieName(tls)}=${secret}`, 'HttpOnly', 'SameSite=Strict', 'Path=/'];
  attributes.push(`Max-Age=${Math.floor(maxAgeMs / 1000)}`);
  if (tls) attributes.push('Secure');
  return attributes.join('; ');
}

/** The Set-Cookie value that removes the session cookie. */
export function clearedSessionCookie(tls: boolean): string {
  return [`${sessionCookieName(tls)}=`, 'HttpOnly', 'SameSite=Strict', 'Path=/', 'Max-Age=0']
    .concat(tls ? ['Secure'] : [])
    .join('; ');
}

/** The session secret in a Cookie header, or undefined when there is none (or it is malformed). */
export function readSessionCookie(header: string | undefined, tls: boolean): string | undefined {
  if (header === undefined) return undefined;
  const name = sessionCookieName(tls);
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=');
    if (separator === -1 || pair.slice(0, separator).trim() !== name) continue;
    const value = pair.slice(separator + 1).trim();
    return value.length > 0 && value.length <= MAX_VALUE_LENGTH && /^[A-Za-z0-9_-]+$/.test(value)
      ? value
      : undefined;
  }
  return undefined;
}

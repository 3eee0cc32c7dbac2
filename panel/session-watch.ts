/**
 * The signed-in shell's session watch: GET /admin/v1/session/watch, an event stream with no
 * events that the daemon ends with an `error` message carrying the 401 envelope the moment the
 * session or its token ends (docs/admin.md, "Roles"). The shell goes back to sign-in saying why.
 */
import { ADMIN, api, SessionEnded } from './api.ts';

/**
 * Holds the watch open; returns the function that closes it. A dropped connection (a restart) is
 * retried by EventSource; one it gives up on (a 401 on reconnecting) is settled by asking for the
 * session, which a 401 ends.
 */
export function watchSession(): () => void {
  const source = new EventSource(`${ADMIN}/session/watch`);
  source.addEventListener('error', (event) => {
    if (event instanceof MessageEvent) {
      source.close();
      const message = (JSON.parse(String(event.data)) as { error?: { message?: string } }).error?.message;
      dispatchEvent(new SessionEnded(message ?? 'signed out'));
    } else if (source.readyState === EventSource.CLOSED) {
      void api('GET', '/session').catch(() => undefined);
    }
  });
  return () => source.close();
}

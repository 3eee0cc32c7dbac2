/**
 * The idempotency stage of both APIs (docs/idempotency.md): a write that carries an
 * Idempotency-Key is admitted by the journal, which may answer it with the stored outcome
 * (replay) or refuse it (409 idempotency_conflict); every other request runs as new, with no
 * await on the way.
 */
import { type Admission, type Idempotency, unkeyedAdmission } from '../../idempotency/idempotency.ts';
import type { ApiRequest } from '../types.ts';

/**
 * `writes`: the methods that may carry a key (/v1: POST, PUT, PATCH; the admin API: POST);
 * `keyId`: whose outcomes the key names (an API key's id; `admin:` and the admin actor).
 */
export function admit(
  idempotency: Idempotency | undefined,
  writes: ReadonlySet<string>,
  route: { readonly method: string; readonly path: string },
  keyId: string,
  req: ApiRequest,
  path: string,
  body: unknown,
): Promise<Admission> | Admission {
  const header = writes.has(route.method) ? req.headers['idempotency-key'] : undefined;
  if (!idempotency || header === undefined) return unkeyedAdmission();
  return idempotency.admit({ keyId, method: route.method, route: route.path, path, body, header });
}

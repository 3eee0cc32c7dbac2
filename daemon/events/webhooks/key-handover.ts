/**
 * When an API key is rolled (daemon/store/key-admin.ts), the webhooks it registered move to the
 * new key: the new key sees, changes and deletes them on /v1, and they keep delivering after the
 * old key's overlap ends instead of stopping as the endpoints of an expired key do
 * (docs/events.md, "Webhooks"). Used by `modgate keys roll` and POST /admin/v1/keys/{id}/roll.
 */
import { updateEndpoints } from './endpoint-file.ts';

/** Gives every endpoint registered by key `fromId` to key `toId`; returns how many moved. */
export async function handOverWebhooks(dir: string, fromId: string, toId: string): Promise<number> {
  const update = await updateEndpoints(dir, (endpoints) =>
    endpoints.map((endpoint) =>
      endpoint.createdBy === fromId ? { ...endpoint, createdBy: toId } : endpoint,
    ),
  );
  return update.after.filter((endpoint) => endpoint.createdBy === toId).length;
}

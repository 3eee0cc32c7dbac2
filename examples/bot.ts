/**
 * A minimal bot built only on `modgate/client`: list the online players, ban one, read the ledger.
 * Run: MODGATE_URL=http://127.0.0.1:8080 MODGATE_KEY=mg_live_… node bot.js (docs/client.md).
 */
import { createModgateClient, idempotencyKey } from 'modgate/client';

const client = createModgateClient({
  baseUrl: process.env['MODGATE_URL'] ?? 'http://127.0.0.1:8080',
  apiKey: process.env['MODGATE_KEY'] ?? '',
});

const online = await client.GET('/v1/players/online');
if (online.error) throw new Error(`players: ${online.error.error.code}`);
console.log(`online: ${online.data.online}`);

const target = online.data.data[0];
if (target) {
  const ban = await client.POST('/v1/players/{ref}/ban', {
    params: { path: { ref: target.platform_id }, header: { 'Idempotency-Key': idempotencyKey() } },
    body: { duration: 1, duration_unit: 'days', reason: 'example bot' },
  });
  if (ban.error) throw new Error(`ban: ${ban.error.error.code}`);
  console.log(`banned ${target.platform_id} until ${ban.data.ban.expires_at}`);
}

const ledger = await client.GET('/v1/economy/transactions', { params: { query: { limit: 5 } } });
if (ledger.error) throw new Error(`ledger: ${ledger.error.error.code}`);
for (const entry of ledger.data.data)
  console.log(`ledger ${entry.at} ${entry.asset} ${entry.amount} ${entry.source}`);

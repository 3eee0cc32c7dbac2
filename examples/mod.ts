/**
 * A minimal game mod built only on `modgate/bridge`: it serves server.status and players.list from
 * an in-memory world. Run: MODGATE_CREDENTIALS=/path/to/mod-credentials.json node mod.js
 * (docs/bridge.md). Ops it does not handle are answered `unsupported`, which the API reports as 404.
 */
import { readModCredentials, startModBridge, type OpResult } from 'modgate/bridge';

type RosterRow = OpResult<'players.list'>['data'][number];

const now = '2026-01-01 12:00:00';
const world: RosterRow[] = ['Ada', 'Brook', 'Cyd'].map((name, i) => ({
  platform_id: `7656119800000000${i + 1}`,
  social_id: null,
  user_profile_id: i + 1,
  platform_name: name,
  char_name: name,
  online: i < 2,
  squad: null,
  money: 1_000 * (i + 1),
  gold: 10,
  coins: 0,
  fame_points: 0,
  attributes: { strength: 1, constitution: 1, dexterity: 1, intelligence: 1 },
  play_time: 60,
  is_admin: false,
  last_seen: now,
  created_at: now,
}));

const credentials = await readModCredentials(process.env['MODGATE_CREDENTIALS'] ?? 'mod-credentials.json');
const bridge = startModBridge({
  ...credentials,
  modVersion: '2.0.47',
  handlers: {
    'server.status': () => ({ player_count: world.filter((p) => p.online).length }),
    'players.list': ({ online, after, limit }) => {
      const rows = world.filter((p) => online === undefined || p.online === online);
      const start = after === null ? 0 : Number(after);
      const page = rows.slice(start, start + limit);
      const next = start + limit < rows.length ? String(start + limit) : null;
      return { data: page, next, total: rows.length };
    },
  },
});
bridge.on('connect', () => console.log('connected'));
process.once('SIGTERM', () => void bridge.close().then(() => process.exit(0)));

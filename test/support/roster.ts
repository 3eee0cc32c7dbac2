/**
 * The keys of a roster row (GET /v1/players, `players.list`), in the order the API documents and
 * sends them (the `RosterRow` schema in the OpenAPI document, docs/openapi.md). One list for every test that checks a row's
 * exact shape, so a change to the row is made in one place.
 */
export const ROSTER_KEYS: readonly string[] = [
  'platform_id',
  'social_id',
  'user_profile_id',
  'platform_name',
  'char_name',
  'online',
  'squad',
  'money',
  'gold',
  'coins',
  'fame_points',
  'attributes',
  'play_time',
  'is_admin',
  'last_seen',
  'created_at',
];

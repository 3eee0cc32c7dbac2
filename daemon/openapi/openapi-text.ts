/**
 * The prose of /openapi.json: the document's info, each tag's description and each operation's,
 * taken from the docs pages (docs/*.md) and composed from what the route declares, so a code
 * generator's output and the docs say the same thing.
 */
import type { AnyRoute } from '../http/define-route.ts';

/** Each tag: what the docs page says about it, and the page. */
export const TAGS: Readonly<Record<string, { description: string; docs: string }>> = {
  Server: {
    description: 'Identity of the server the key is bound to, and its live status from the game server.',
    docs: 'docs/operations.md',
  },
  Players: {
    description:
      'The roster, the live online snapshot, full profiles, inventories, moderation state, and the sensitive violation and IP histories. `{ref}` is a 17-digit platform id or `social:` and a 17 to 20 digit social id.',
    docs: 'docs/players.md',
  },
  Moderation: {
    description:
      'Ban, unban, mute and unmute. Every write converges (repeating it gives the same state), is attributed to the key, and takes If-Match against the moderation state.',
    docs: 'docs/players.md',
  },
  'Social link': {
    description:
      'Link a social account to a platform id, or unlink it by either ref. A link that exists on either side is 409.',
    docs: 'docs/players.md',
  },
  Squads: {
    description:
      'Squads with their members, summary, and the bases, vehicles and containers of their members. Cached 10 s with an ETag.',
    docs: 'docs/assets.md',
  },
  Bases: {
    description: 'Bases by flag id, with owner, size and health filters. Cached 15 s with an ETag.',
    docs: 'docs/assets.md',
  },
  Vehicles: {
    description:
      'Vehicles by entity id (a decimal string that can pass 2^53-1), their inventories and the count per display name.',
    docs: 'docs/assets.md',
  },
  Containers: {
    description:
      'Containers by entity id (a decimal string that can pass 2^53-1), their inventories and the count per display name.',
    docs: 'docs/assets.md',
  },
  Commands: {
    description:
      'Run admin console commands, read the command catalogue (ETag, 304) and the command history from every source.',
    docs: 'docs/commands.md',
  },
  'Shop coins': {
    description:
      'Credit or debit shop coins for one player or everyone; each change is in the ledger and applies once per Idempotency-Key.',
    docs: 'docs/economy.md',
  },
  'In-game currency': {
    description:
      'Change cash or gold, as a delta or an absolute value, for one connected player or everyone; the game runs a console command for each change.',
    docs: 'docs/economy.md',
  },
  'Economy ledger': {
    description:
      'Every balance movement, coins and in-game currency, from every source, newest first. Never cached.',
    docs: 'docs/economy.md',
  },
  Packs: {
    description:
      "The pack catalogue, free deliveries and the delivery history. Needs the plan's shop feature.",
    docs: 'docs/packs.md',
  },
  'Claim codes': {
    description:
      "Mint, list and revoke pack claim codes; a linked recipient also gets the code by direct message. Needs the plan's shop feature.",
    docs: 'docs/packs.md',
  },
  Meta: { description: 'Liveness and this document; no key needed.', docs: 'docs/operations.md' },
};

export const INFO = {
  title: 'modgate game-server management API',
  description: [
    'Read players, moderate, move currency, deliver packs and run commands on one game server.',
    '',
    'Every `/v1` operation needs `Authorization: Bearer <API key>` with the scope its `security` lists,',
    'and an active premium plan; packs and claim codes also need the plan feature named in',
    '`x-plan-feature`. Errors share one envelope: branch on `error.code`. Typed client: docs/client.md.',
  ].join('\n'),
  contact: { name: 'modgate maintainers' },
  license: { name: 'UNLICENSED: proprietary, all rights reserved', identifier: 'LicenseRef-modgate' },
};

/** An operation's description: its declaration's prose, then what it declares, then its page. */
export function describeRoute(route: AnyRoute): string {
  const lines = [route.description ?? `${route.summary}.`];
  lines.push(
    `Scope \`${route.scope}\`${route.feature ? `; needs the plan's \`${route.feature}\` feature` : ''}.`,
  );
  if (route.cache.kind === 'private') {
    lines.push(
      `Cached: \`private, max-age=${route.cache.maxAgeSec}\` with a strong ETag; send it as If-None-Match for a 304 while unchanged.`,
    );
  } else if (route.method === 'GET') {
    lines.push('Never cached: every request reaches the game server.');
  }
  if (route.method === 'POST') {
    lines.push(
      'Send an Idempotency-Key: a retry with the same key replays the first outcome (docs/idempotency.md).',
    );
  }
  if (route.errors.includes('precondition_failed')) {
    lines.push(
      'If-Match: the ETag of GET /v1/players/{ref}/moderation; 412 `precondition_failed` when it changed, and nothing is sent to the game.',
    );
  }
  lines.push(`More: ${TAGS[route.tag]?.docs ?? 'docs/errors.md'}.`);
  return lines.join('\n\n');
}

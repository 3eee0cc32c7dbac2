/**
 * What Discord's "Execute Webhook" accepts, as its developer documentation states it (message
 * `content` and/or `embeds`; "Embed Limits"), checked the way a Discord-like receiver would:
 * returns every violation, so a test can assert there are none.
 */
const LIMITS = {
  embeds: 10,
  title: 256,
  description: 4096,
  fields: 25,
  name: 256,
  value: 1024,
  footer: 2048,
  total: 6000,
};

export function discordViolations(message: unknown): string[] {
  const problems: string[] = [];
  if (typeof message !== 'object' || message === null) return ['the body is not a JSON object'];
  const { content, embeds } = message as { content?: unknown; embeds?: unknown };
  const hasContent = typeof content === 'string' && content !== '';
  if (!hasContent && (!Array.isArray(embeds) || embeds.length === 0))
    problems.push('neither content nor embeds');
  if (content !== undefined && content !== null && typeof content !== 'string')
    problems.push('content is not a string');
  if (!Array.isArray(embeds)) return problems;
  if (embeds.length > LIMITS.embeds) problems.push(`${embeds.length} embeds (at most ${LIMITS.embeds})`);
  let total = 0;
  embeds.forEach((embed: Record<string, unknown>, i) => {
    const text = (key: string, max: number, value: unknown) => {
      if (value === undefined) return;
      if (typeof value !== 'string') problems.push(`embeds[${i}].${key} is not a string`);
      else if ([...value].length > max)
        problems.push(`embeds[${i}].${key} has ${value.length} characters (at most ${max})`);
      else total += [...value].length;
    };
    text('title', LIMITS.title, embed['title']);
    text('description', LIMITS.description, embed['description']);
    const footer = embed['footer'] as { text?: unknown } | undefined;
    text('footer.text', LIMITS.footer, footer?.text);
    if (embed['timestamp'] !== undefined && Number.isNaN(Date.parse(String(embed['timestamp']))))
      problems.push(`embeds[${i}].timestamp is not ISO 8601`);
    if (embed['color'] !== undefined && !Number.isInteger(embed['color']))
      problems.push(`embeds[${i}].color is not an integer`);
    const fields = embed['fields'];
    if (fields === undefined) return;
    if (!Array.isArray(fields)) return void problems.push(`embeds[${i}].fields is not an array`);
    if (fields.length > LIMITS.fields) problems.push(`embeds[${i}] has ${fields.length} fields`);
    fields.forEach((field: Record<string, unknown>, j) => {
      text(`fields[${j}].name`, LIMITS.name, field['name']);
      text(`fields[${j}].value`, LIMITS.value, field['value']);
      if (field['name'] === '' || field['value'] === '') problems.push(`embeds[${i}].fields[${j}] is empty`);
      if (field['inline'] !== undefined && typeof field['inline'] !== 'boolean')
        problems.push(`embeds[${i}].fields[${j}].inline is not a boolean`);
    });
  });
  if (total > LIMITS.total) problems.push(`${total} characters across embeds (at most ${LIMITS.total})`);
  return problems;
}

/** Plain-text output helpers shared by the commands. */
import type { Plan } from '../daemon/store/state.ts';
import { isPremiumActive } from '../daemon/store/state.ts';

/** Left-aligned columns separated by two spaces; the first row is the header. */
export function formatTable(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** ISO 8601 in UTC to the second: `2030-01-31T18:00:00Z`. */
export function formatDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The ISO form the JSON outputs use (same as the files). */
export function jsonDate(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

/** `on until 2030-01-31T00:00:00Z, features: shop (active)` and the like. */
export function describePlan(plan: Plan, now: Date): string {
  const until = plan.until === null ? '' : ` until ${formatDate(plan.until)}`;
  const features = plan.features.length === 0 ? 'none' : plan.features.join(', ');
  let status: string;
  if (isPremiumActive(plan, now)) status = 'active';
  else if (plan.premium) status = 'expired';
  else status = 'inactive';
  return `premium ${plan.premium ? 'on' : 'off'}${until}, features: ${features} (${status})`;
}

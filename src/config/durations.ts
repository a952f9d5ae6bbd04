const DURATION_UNIT_SECONDS = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;

/** A duration written with its unit (`30s`, `90m`, `24h`, `7d`) in seconds; undefined when the text is not one. */
export function durationSeconds(text: string): number | undefined {
  const match = /^([1-9][0-9]{0,6})([smhd])$/.exec(text);
  return match ? Number(match[1]) * DURATION_UNIT_SECONDS[match[2] as keyof typeof DURATION_UNIT_SECONDS] : undefined;
}

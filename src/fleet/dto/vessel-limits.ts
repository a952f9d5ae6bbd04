/** What a vessel record may hold: the record import refuses more, and the listing documents these bounds. */
export const VESSEL_LIMITS = {
  /** name, class and commander. */
  text: 100,
  status: 50,
  crew: 10_000_000,
  /** A number followed by " meters", e.g. "1600 meters". */
  lengthPattern: /^[0-9]+(\.[0-9]+)? meters$/,
  length: 32,
} as const;

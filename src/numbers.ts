/** Small numeric helpers shared by scores and analytics, written once. */

/** `value` held within [min, max]. */
export const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

/** `value` rounded to `digits` decimals. */
export const round = (value: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

/** One decimal, as scores are shown. */
export const tenth = (value: number): number => round(value, 1);

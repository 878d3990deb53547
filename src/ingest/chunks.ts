/** Rows per multi-row statement: large batches are written in parts of this size. */
const CHUNK = 500;

/** `items` in consecutive parts of at most `size`. */
export function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

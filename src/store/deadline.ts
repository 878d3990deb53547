/** Resolves like `promise`, or rejects once `ms` have passed; a late rejection is swallowed. */
export async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  promise.catch(() => {});
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`store did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long a request waits for the store before it fails open (DESIGN §3). */
export const STORE_TIMEOUT_MS = 1000;

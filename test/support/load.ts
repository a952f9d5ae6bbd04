export interface Outcome {
  /** Method and path. */
  request: string;
  status: number | 'no answer';
  errorCode?: string;
  ms: number;
}

export interface LoadOptions {
  url: string;
  /** `Bearer <jwt>` sent with every request. */
  bearer: string;
  /** The request a worker sends next: its path and fetch options. */
  next: (index: number) => [string, RequestInit];
  workers?: number;
  /** A request unanswered after this counts as 'no answer' rather than stalling the worker. */
  timeoutMs: number;
  /** Every worker stops by itself after this long, whether or not the test got to stop it. */
  limitMs?: number;
}

export interface Load {
  /** The outcomes so far. */
  outcomes: () => readonly Outcome[];
  /** Stops sending, waits for the requests under way, and gives every outcome. */
  stop: () => Promise<Outcome[]>;
}

/**
 * Workers that keep sending requests, each waiting for its answer, until stopped, until `limitMs` has
 * passed, or, each, until the server refuses a connection: a server that closed its port may see it
 * taken by another test's server, which would then get this load's requests.
 */
export function startLoad({ url, bearer, next, workers = 8, timeoutMs, limitMs = 60_000 }: LoadOptions): Load {
  const outcomes: Outcome[] = [];
  let running = true;
  const deadline = performance.now() + limitMs;
  const work = async (worker: number) => {
    for (let index = worker; running && performance.now() < deadline; index += workers) {
      const [path, init] = next(index);
      const request = `${init.method ?? 'GET'} ${path}`;
      const started = performance.now();
      try {
        const response = await fetch(`${url}${path}`, {
          ...init,
          headers: { Authorization: bearer, 'Content-Type': 'application/json' },
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = (await response.json()) as { error_code?: string };
        outcomes.push({ request, status: response.status, errorCode: body.error_code, ms: performance.now() - started });
      } catch (error) {
        outcomes.push({ request, status: 'no answer', ms: performance.now() - started });
        if ((error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') {
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const all = Array.from({ length: workers }, (_, worker) => work(worker));
  return {
    outcomes: () => outcomes,
    stop: async () => {
      running = false;
      await Promise.all(all);
      return outcomes;
    },
  };
}

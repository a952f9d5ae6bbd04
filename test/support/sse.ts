import assert from 'node:assert/strict';

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The body of a refusal. */
  text: () => Promise<string>;
  /** Reads frames until `count` match `wanted`, within `timeoutMs`; returns those. */
  take: (count: number, timeoutMs?: number, wanted?: (frame: SseFrame) => boolean) => Promise<SseFrame[]>;
  /** Resolves true when the server ends the stream within `timeoutMs`. */
  ended: (timeoutMs: number) => Promise<boolean>;
  close: () => void;
}

function parse(block: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      frame.comment = line.slice(1).trim();
    } else {
      const colon = line.indexOf(':');
      const [field, value] = [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
      if (field === 'id' || field === 'event' || field === 'data') {
        frame[field] = value;
      }
    }
  }
  return frame;
}

/** Opens a Server-Sent Events stream with fetch, on 127.0.0.1 only. */
export async function openStream(url: string, headers: Record<string, string>): Promise<SseStream> {
  assert.match(url, /^http:\/\/127\.0\.0\.1:/);
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal }).catch((error: Error) => {
    throw new Error(`${error.message}: ${String(error.cause)}`);
  });
  const refusal = res.status === 200 ? undefined : await res.text();
  const reader = refusal === undefined ? res.body?.getReader() : undefined;
  const decoder = new TextDecoder();
  let buffer = '';
  let done = false;
  const pending: SseFrame[] = [];
  /** The read under way: one that outlived a timeout is awaited again, so no chunk is lost. */
  let inflight: Promise<{ done: boolean; value?: Uint8Array }> | undefined;

  /** One more chunk, or false when the stream ended or `deadline` passed. */
  const readChunk = async (deadline: number): Promise<boolean> => {
    if (!reader || done) {
      return false;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
    });
    inflight ??= reader.read().catch(() => ({ done: true, value: undefined }));
    const chunk = await Promise.race([inflight, timeout]);
    clearTimeout(timer);
    if (chunk === 'timeout') {
      return false;
    }
    inflight = undefined;
    if (chunk.done) {
      done = true;
      return false;
    }
    buffer += decoder.decode(chunk.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      pending.push(parse(buffer.slice(0, end)));
      buffer = buffer.slice(end + 2);
    }
    return true;
  };

  return {
    status: res.status,
    headers: res.headers,
    text: async () => refusal ?? '',
    take: async (count, timeoutMs = 3_000, wanted = (frame) => frame.event === 'audit') => {
      const deadline = Date.now() + timeoutMs;
      const taken: SseFrame[] = [];
      while (taken.length < count) {
        const frame = pending.shift();
        if (frame) {
          if (wanted(frame)) {
            taken.push(frame);
          }
        } else if (!(await readChunk(deadline))) {
          break;
        }
      }
      return taken;
    },
    ended: async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (!done && Date.now() < deadline && (await readChunk(deadline))) {
        pending.length = 0;
      }
      return done;
    },
    close: () => controller.abort(),
  };
}

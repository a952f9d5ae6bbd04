/** How long a witness has to answer an add-checkpoint request. */
const ANSWER_TIMEOUT_MS = 10_000;
/** The most of a witness's answer that is read: a few signature lines, or a short message. */
const ANSWER_MAX_CHARS = 16_384;

/** What a witness answered: its signature lines, the size it holds (409), or a refusal with its status and message. */
export type WitnessAnswer = { status: 200; lines: string[] } | { status: 409; size: number } | { status: number; message: string };

/**
 * POST <url>/add-checkpoint (c2sp.org/tlog-witness): the old size, the consistency proof from it, a
 * blank line and the signed checkpoint. Fails (rejects) only when the witness cannot be reached or
 * does not answer in time.
 */
export async function addCheckpoint(url: string, oldSize: number, proof: string[], note: string): Promise<WitnessAnswer> {
  const body = `old ${oldSize}\n${proof.map((hash) => `${hash}\n`).join('')}\n${note}`;
  const response = await fetch(`${url}/add-checkpoint`, { method: 'POST', body, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
  const text = (await response.text()).slice(0, ANSWER_MAX_CHARS);
  if (response.status === 200) {
    return { status: 200, lines: text.split('\n').filter((line) => line !== '') };
  }
  const held = /^(0|[1-9]\d{0,15})\n$/.exec(text);
  if (response.status === 409 && response.headers.get('content-type')?.startsWith('text/x.tlog.size') && held) {
    return { status: 409, size: Number(held[1]) };
  }
  return { status: response.status, message: text.trim().split('\n')[0] ?? '' };
}

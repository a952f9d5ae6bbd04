/** Notification payloads stay well under PostgreSQL's 8,000 bytes; a longer list is sent as none. */
const MAX_MESSAGE_LENGTH = 7_000;

/**
 * Places in the queue as ranges, `1-40,45,47-90`, so a notice can say which events it placed; '' when
 * they would not fit, and the listener then asks the database instead.
 */
export function encodePlaced(pendingIds: readonly number[]): string {
  const sorted = [...pendingIds].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let start = 0; start < sorted.length; ) {
    let end = start;
    while (end + 1 < sorted.length && sorted[end + 1] === sorted[end] + 1) {
      end++;
    }
    ranges.push(end === start ? String(sorted[start]) : `${sorted[start]}-${sorted[end]}`);
    start = end + 1;
  }
  const message = ranges.join(',');
  return message.length > MAX_MESSAGE_LENGTH ? '' : message;
}

/** The places a message of encodePlaced names; none for ''. */
export function decodePlaced(message: string): number[] {
  if (message === '') {
    return [];
  }
  return message.split(',').flatMap((range) => {
    const [start, end = start] = range.split('-').map(Number);
    return Array.from({ length: end - start + 1 }, (_, offset) => start + offset);
  });
}

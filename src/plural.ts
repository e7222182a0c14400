/** Counted nouns in messages: "1 page", "2 pages", "0 URLs" (never "1 pages"). */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

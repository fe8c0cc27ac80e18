// One wording for counts in every command's output: "1 key", "2 keys", "0 wallets".

/** `n` and the noun, singular for exactly one. */
export function counted(n: number | bigint, noun: string): string {
  return `${n} ${n === 1 || n === 1n ? noun : `${noun}s`}`;
}

/** Business keys the cycles pick from: `k:00000` … (fixed width, so every key is as long). */
export function keyName(index: number): string {
  return `k:${String(index).padStart(5, "0")}`;
}

/** A uniformly random key among the first `keys` of {@link keyName}'s space. */
export function randomKey(keys: number): string {
  return keyName(Math.floor(Math.random() * keys));
}
